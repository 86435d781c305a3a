-- The user commands (`:SelfDebug`, `:SelfDebugAccept`, ...), defined by plugin/selfdebug.lua at
-- start-up and again by setup() (a runtimepath entry added after start-up has no plugin/ run).
-- Light on purpose: each command loads the client (`require('selfdebug')`) only when used.

local M = {}

local function client()
  return require('selfdebug')
end

local COMMANDS = {
  SelfDebug = {
    function(args)
      client().run_at_cursor('selfdebug.selfDebug', args.args)
    end,
    { nargs = '?', desc = 'Self-debug the function under the cursor [mode]' },
  },
  SelfDebugFailure = {
    function(args)
      client().run_at_cursor('selfdebug.debugFailure', args.args)
    end,
    { nargs = '?', desc = 'Self-debug the failure of the test under the cursor [mode]' },
  },
  SelfDebugTests = {
    function()
      client().run_at_cursor('selfdebug.runTests')
    end,
    { desc = 'Run the tests of the function under the cursor' },
  },
  SelfDebugAccept = {
    function()
      client().accept()
    end,
    { desc = 'Apply the fix under review to its buffer (refused if the buffer changed)' },
  },
  SelfDebugReject = {
    function()
      client().reject()
    end,
    { desc = 'Drop the fix under review (the buffer stays unchanged)' },
  },
  SelfDebugReport = {
    function()
      client().show_report()
    end,
    { desc = 'Show the last selfdebug session report (explanation, diff)' },
  },
}

--- Define every command (again: the last definition wins, so calling twice is harmless).
function M.create()
  for name, spec in pairs(COMMANDS) do
    vim.api.nvim_create_user_command(name, spec[1], spec[2])
  end
end

return M

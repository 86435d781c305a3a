-- selfdebug for Neovim 0.11+: the documented setup (the editor test loads this very file).
--
-- Put this file on your runtimepath as lua/selfdebug.lua (or dofile() it) and call:
--
--   require('selfdebug').setup({
--     -- cmd = { '/path/to/venv/bin/selfdebug', 'serve' },   -- default: `selfdebug` on PATH
--     settings = { selfdebug = { maxTurns = 4, mode = 'auto', runOnSave = false } },
--   })
--
-- Then, on a Python function: `:lua vim.lsp.buf.code_action()` offers "Self-debug `f`" (and the
-- print-debugging / explaining variants, and "Run tests for `f`"). Picking one runs the session
-- with a progress report; the fix arrives as an edit to review (`u` undoes it), the failing
-- tests appear as diagnostics, and `:SelfDebugReport` shows the explanation and the diff.
-- `:SelfDebug [mode]` and `:SelfDebugTests` do the same for the function under the cursor.

local M = {}

M.defaults = {
  cmd = { 'selfdebug', 'serve' },
  filetypes = { 'python' },
  root_markers = { 'pyproject.toml', 'setup.cfg', 'setup.py', 'pytest.ini', 'tox.ini', '.git' },
  -- Answered to the server's workspace/configuration requests (section "selfdebug"); every key
  -- is optional: backend, modelPath, endpointUrl, modelName, apiKeyEnv, allowRemote, mode,
  -- maxTurns, samples, testSelection, testTimeout, isolation, runOnSave, showReport, pythonPath.
  settings = { selfdebug = {} },
}

--- The last `selfdebug/sessionReport` the server sent (nil before the first session).
M.last_report = nil

local function on_session_report(_, report)
  M.last_report = report
  local applied = report.applied and ' (fix applied: review it, `u` undoes it)' or ''
  local level = report.success and vim.log.levels.INFO or vim.log.levels.WARN
  vim.notify(('selfdebug `%s`: %s%s'):format(report.qualname, report.summary, applied), level)
end

local function client_for(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr, name = 'selfdebug' })[1]
end

--- Run a server command on the function under the cursor ({uri, position} arguments).
function M.run_at_cursor(command, mode)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    vim.notify('selfdebug: the language server is not attached to this buffer', vim.log.levels.ERROR)
    return
  end
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  local argument = { uri = params.textDocument.uri, position = params.position }
  if mode and mode ~= '' then
    argument.mode = mode
  end
  client:exec_cmd({ title = command, command = command, arguments = { argument } }, { bufnr = bufnr })
end

function M.show_report()
  if not M.last_report then
    vim.notify('selfdebug: no session report yet', vim.log.levels.INFO)
    return
  end
  vim.cmd('new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].filetype = 'markdown'
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(M.last_report.markdown, '\n'))
end

function M.setup(opts)
  local config = vim.tbl_deep_extend('force', M.defaults, opts or {})
  config.handlers = vim.tbl_extend('force', config.handlers or {}, {
    ['selfdebug/sessionReport'] = on_session_report,
  })
  vim.lsp.config('selfdebug', config)
  vim.lsp.enable('selfdebug')

  vim.api.nvim_create_user_command('SelfDebug', function(args)
    M.run_at_cursor('selfdebug.selfDebug', args.args)
  end, { nargs = '?', desc = 'Self-debug the function under the cursor [mode]' })
  vim.api.nvim_create_user_command('SelfDebugTests', function()
    M.run_at_cursor('selfdebug.runTests')
  end, { desc = 'Run the tests of the function under the cursor' })
  vim.api.nvim_create_user_command('SelfDebugReport', M.show_report, {
    desc = 'Show the last selfdebug session report (explanation, diff)',
  })
  return config
end

return M

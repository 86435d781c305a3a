-- `:checkhealth selfdebug`: is the plugin set up, can Neovim start the server, and what does the
-- server find on this machine. The server's side is `selfdebug doctor --quick --json` run with the
-- same command and settings the LSP client uses (the model is checked, not loaded), so the
-- report names the version, the sandbox and the model the server would really use.

local M = {}

-- settings.selfdebug keys -> `selfdebug doctor` flags (the server's names: server/lsp/settings.py);
-- a string value follows its flag, a `true` switch is the flag alone.
local FLAGS = {
  { 'backend', '--backend' },
  { 'modelPath', '--model' },
  { 'endpointUrl', '--endpoint' },
  { 'modelName', '--model-name' },
  { 'allowRemote', '--allow-remote' },
  { 'pythonPath', '--interpreter' },
  { 'isolation', '--isolation' },
  { 'requireSandbox', '--require-sandbox' },
}

--- The `selfdebug doctor` command line for `config` (the options setup() got) in folder `root`:
--- the server command up to its `serve`, then `doctor --quick --json`, the settings as flags.
--- nil when the server command has no `serve` to replace.
function M.doctor_command(config, root)
  local cmd = config.cmd
  local serve
  for i, word in ipairs(cmd) do
    if word == 'serve' then
      serve = i
    end
  end
  if not serve then
    return nil
  end
  local argv = vim.list_slice(cmd, 1, serve - 1)
  vim.list_extend(argv, { 'doctor', '--quick', '--json' })
  local settings = (config.settings or {}).selfdebug or {}
  for _, pair in ipairs(FLAGS) do
    local value = settings[pair[1]]
    if value == true then
      table.insert(argv, pair[2])
    elseif type(value) == 'string' and value ~= '' then
      vim.list_extend(argv, { pair[2], value })
    end
  end
  -- trust is the client's own word (init_options), never a workspace setting
  local init = (config.init_options or {}).selfdebug or {}
  if init.trustedWorkspace == true then
    table.insert(argv, '--trust-project')
  end
  table.insert(argv, root)
  return argv
end

local function check_client(selfdebug)
  vim.health.start('selfdebug: the plugin')
  if vim.fn.has('nvim-0.11') == 1 then
    vim.health.ok('Neovim ' .. tostring(vim.version()))
  else
    vim.health.error('Neovim ' .. tostring(vim.version()) .. ' is too old', 'selfdebug needs Neovim 0.11+ (vim.lsp.config)')
  end
  local enabled = vim.lsp.is_enabled and vim.lsp.is_enabled('selfdebug')
  if selfdebug.did_setup then
    vim.health.ok("require('selfdebug').setup() was called")
  elseif enabled then
    vim.health.ok("vim.lsp.enable('selfdebug') was called (lsp/selfdebug.lua)")
  else
    vim.health.warn("the server is not enabled", {
      "call vim.lsp.enable('selfdebug') (or require('selfdebug').setup()) from your init.lua (client-neovim/README.md)",
    })
  end
  for _, old in ipairs(vim.api.nvim_get_runtime_file('lua/selfdebug.lua', true)) do
    vim.health.warn('an old copy of the single-file setup shadows the plugin: ' .. old, { 'delete it' })
  end
  local clients = vim.lsp.get_clients({ name = 'selfdebug' })
  if #clients > 0 then
    local buffers = vim.tbl_count(clients[1].attached_buffers)
    vim.health.ok(('the server is running (client %d, %d buffer(s))'):format(clients[1].id, buffers))
  else
    vim.health.info('the server is not running yet: it starts on a Python buffer inside a project')
  end
end

local function check_server(config)
  vim.health.start('selfdebug: the server')
  local cmd = config.cmd
  local program = vim.fn.exepath(cmd[1])
  if program == '' then
    vim.health.error('server command not found: ' .. table.concat(cmd, ' '), {
      'install selfdebug (`bash scripts/setup.sh` in its checkout) and put its `selfdebug` on PATH',
      "or set `cmd = { '/path/to/venv/bin/selfdebug', 'serve' }` in setup()",
    })
    return
  end
  vim.health.ok('server command: ' .. table.concat(cmd, ' ') .. (program ~= cmd[1] and (' (' .. program .. ')') or ''))

  local root = vim.fs.root(0, config.root_markers) or vim.fn.getcwd()
  local doctor = M.doctor_command(config, root)
  if not doctor then
    vim.health.warn('cannot tell the command line program from `cmd` (no `serve` in it): no server checks')
    return
  end
  local started, process = pcall(vim.system, doctor, { text = true })
  if not started then
    vim.health.error('`' .. table.concat(doctor, ' ') .. '` did not start: ' .. tostring(process))
    return
  end
  local done = process:wait(120000)
  local parsed, report = pcall(vim.json.decode, done.stdout or '')
  if not parsed or type(report) ~= 'table' or type(report.checks) ~= 'table' then
    local output = vim.trim((done.stdout or '') .. '\n' .. (done.stderr or ''))
    vim.health.error(('`%s` gave no report (exit %s): %s'):format(table.concat(doctor, ' '), tostring(done.code), output), {
      'an older selfdebug has no `doctor --quick`: update it',
    })
    return
  end
  vim.health.ok('version: selfdebug ' .. tostring(report.version))
  for _, check in ipairs(report.checks) do
    local line = check.name .. ': ' .. check.detail
    local advice = check.hint ~= '' and { check.hint } or nil
    if check.ok then
      vim.health.ok(line)
    elseif check.critical then
      vim.health.error(line, advice)
    else
      vim.health.warn(line, advice)
    end
  end
  vim.health.info(('checked by `%s`'):format(table.concat(doctor, ' ')))
end

function M.check()
  local selfdebug = require('selfdebug')
  check_client(selfdebug)
  check_server(selfdebug.resolved_config())
end

return M

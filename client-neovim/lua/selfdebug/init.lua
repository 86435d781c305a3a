-- selfdebug for Neovim 0.11+, the client (`require('selfdebug')`). Put this folder (client-neovim/,
-- or `selfdebug editor-path neovim`) on the runtimepath (README.md beside it) and enable the
-- server, whose configuration is lsp/selfdebug.lua:
--
--   vim.lsp.enable('selfdebug')
--   -- vim.lsp.config('selfdebug', { cmd = { '/path/to/venv/bin/selfdebug', 'serve' },
--   --   settings = { selfdebug = { maxTurns = 4, mode = 'auto', runOnSave = false } },
--   --   init_options = { selfdebug = { trustedWorkspace = true } } })  -- the project's .venv may run
--
-- or call `require('selfdebug').setup(opts)` with the same options (plugin managers' `opts`).
--
-- Then, on a Python function: `gra` (or `:lua vim.lsp.buf.code_action()`) offers "Self-debug `f`"
-- (and the print-debugging / explaining variants, and "Run tests for `f`"). Picking one runs the
-- session with a progress report; the fix opens as a diff preview in a new tab (the file as the
-- session saw it | the proposed file, with the explanation and the evidence below). Press `a`
-- (or `:SelfDebugAccept`) to apply it to the buffer and write it, `r` / `q` (or
-- `:SelfDebugReject`) to drop it: nothing in the buffer changes before Accept, and a buffer
-- edited during the session is refused. `:SelfDebugReport` shows the last explanation and diff.
-- `:SelfDebug [mode]` and `:SelfDebugTests` do the same for the function under the cursor.
-- `:checkhealth selfdebug` (lua/selfdebug/health.lua) checks the server and this machine.

local M = {}

M.defaults = {
  cmd = { 'selfdebug', 'serve' },
  filetypes = { 'python' },
  root_markers = { 'pyproject.toml', 'setup.cfg', 'setup.py', 'pytest.ini', 'tox.ini', '.git' },
  -- Answered to the server's workspace/configuration requests (section "selfdebug"); every key
  -- is optional. The keys and defaults are the server's `ServerSettings` (server/lsp/settings.py;
  -- VS Code's Settings editor describes each one).
  settings = { selfdebug = {} },
  review = {
    write = true, -- Accept writes the buffer when it had no unsaved changes before (fix on disk)
    keys = { accept = 'a', reject = 'r', close = 'q' }, -- in the preview's buffers
  },
}

M.config = M.defaults -- until setup() merges the user's options
M.did_setup = false -- setup() ran (the health check says so when it did not)

--- The last `selfdebug/sessionReport` the server sent (nil before the first session).
M.last_report = nil

local function on_session_report(_, report)
  M.last_report = report
  local applied = report.applied == true and ' (fix applied: review it, `u` undoes it)' or ''
  local level = report.success and vim.log.levels.INFO or vim.log.levels.WARN
  vim.notify(('selfdebug `%s`: %s%s'):format(report.qualname, report.summary, applied), level)
end

-- The fix under review: {proposal, bufnr, client_id, tab, buffers, origin_win} (nil when none).
M.review = nil

local function lines_of(text)
  local lines = vim.split(text, '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines) -- the file's final newline
  end
  return lines
end

local function scratch(name, lines, filetype)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_name(buf, name)
  vim.bo[buf].filetype = filetype
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  return buf
end

local function close_review()
  local review = M.review
  M.review = nil
  if not review then
    return
  end
  if vim.api.nvim_tabpage_is_valid(review.tab) and #vim.api.nvim_list_tabpages() > 1 then
    for _, win in ipairs(vim.api.nvim_tabpage_list_wins(review.tab)) do
      pcall(vim.api.nvim_win_close, win, true)
    end
  end
  for _, buf in ipairs(review.buffers) do
    if vim.api.nvim_buf_is_valid(buf) then
      pcall(vim.api.nvim_buf_delete, buf, { force = true })
    end
  end
  if vim.api.nvim_win_is_valid(review.origin_win) then
    vim.api.nvim_set_current_win(review.origin_win)
  end
end

--- Why the proposal may not be applied to the buffer now, or nil (the server's rule: the
--- document's version must be the one the session started from).
function M.stale_reason(review)
  local proposal = review.proposal
  if type(proposal.staleReason) == 'string' then
    return proposal.staleReason
  end
  if not vim.api.nvim_buf_is_loaded(review.bufnr) then
    return 'the buffer was closed'
  end
  local now = vim.lsp.util.buf_versions[review.bufnr]
  if type(proposal.version) == 'number' and now ~= proposal.version then
    return ('the buffer changed during the session (version %d -> %d)'):format(proposal.version, now)
  end
  -- no version: the session read the file from disk (a function found from a failing test)
  local text = table.concat(vim.api.nvim_buf_get_lines(review.bufnr, 0, -1, false), '\n') .. '\n'
  if type(proposal.version) ~= 'number' and text ~= proposal.original then
    return 'the file changed during the session'
  end
  return nil
end

--- Apply the fix under review to its buffer (and write it, see `review.write`), or refuse it.
function M.accept()
  local review = M.review
  if not review then
    vim.notify('selfdebug: no fix to accept', vim.log.levels.WARN)
    return false
  end
  local qualname = review.proposal.qualname
  local reason = M.stale_reason(review)
  if reason then
    close_review()
    vim.notify(('selfdebug: fix for `%s` not applied: %s. Run it again.'):format(qualname, reason), vim.log.levels.ERROR)
    return false
  end
  local client = vim.lsp.get_client_by_id(review.client_id)
  local encoding = client and client.offset_encoding or 'utf-16'
  local had_changes = vim.bo[review.bufnr].modified
  vim.lsp.util.apply_workspace_edit(review.proposal.edit, encoding)
  local now = table.concat(vim.api.nvim_buf_get_lines(review.bufnr, 0, -1, false), '\n') .. '\n'
  if now ~= review.proposal.proposed then
    close_review()
    vim.notify(('selfdebug: fix for `%s`: the edit did not give the proposed text; check the buffer (`u` undoes)'):format(qualname), vim.log.levels.ERROR)
    return false
  end
  local written = ''
  if M.config.review.write and not had_changes then
    vim.api.nvim_buf_call(review.bufnr, function()
      vim.cmd('silent write')
    end)
    written = ' and written'
  end
  close_review()
  vim.notify(('selfdebug: fix for `%s` applied%s (%s)'):format(qualname, written, review.proposal.evidence))
  return true
end

--- Drop the fix under review; its buffer stays as it is.
function M.reject()
  local review = M.review
  if not review then
    vim.notify('selfdebug: no fix to reject', vim.log.levels.WARN)
    return
  end
  close_review()
  vim.notify(('selfdebug: fix for `%s` discarded; the buffer is unchanged'):format(review.proposal.qualname))
end

--- The diff preview: a new tab with the file as the session saw it and the proposed file in
--- diff mode, the explanation and the evidence below; the user's buffer is not touched.
function M.open_review(proposal, bufnr, client_id)
  close_review()
  local origin_win = vim.api.nvim_get_current_win()
  local name = 'selfdebug://' .. proposal.qualname
  local original = scratch(name .. '/original', lines_of(proposal.original), 'python')
  local proposed = scratch(name .. '/proposed', lines_of(proposal.proposed), 'python')
  local keys = M.config.review.keys
  local info_lines = {
    ('Fix for `%s`: %s'):format(proposal.qualname, proposal.evidence),
    '',
  }
  vim.list_extend(info_lines, lines_of(proposal.explanation ~= '' and proposal.explanation or 'The model gave no explanation.'))
  for _, warning in ipairs(proposal.warnings or {}) do
    table.insert(info_lines, 'Warning: ' .. warning)
  end
  if type(proposal.staleReason) == 'string' then
    table.insert(info_lines, 'Stale: ' .. proposal.staleReason .. ' (Accept will be refused)')
  end
  table.insert(info_lines, '')
  table.insert(info_lines, ('%s: accept (apply, write)   %s: reject   :SelfDebugAccept / :SelfDebugReject'):format(keys.accept, keys.reject))
  local info = scratch(name .. '/explanation', info_lines, 'markdown')

  vim.cmd('tab split')
  local tab = vim.api.nvim_get_current_tabpage()
  local left = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(left, original)
  vim.cmd('rightbelow vsplit')
  local right = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(right, proposed)
  for _, win in ipairs({ left, right }) do
    vim.api.nvim_win_call(win, function()
      vim.cmd('diffthis')
    end)
  end
  vim.wo[left].winbar = 'original (as the session saw it)'
  vim.wo[right].winbar = ('proposed: %s'):format(proposal.evidence)
  vim.cmd(('botright %dsplit'):format(math.min(#info_lines, 10)))
  local bottom = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(bottom, info)
  vim.wo[bottom].wrap = true
  vim.wo[bottom].winfixheight = true

  local start_line = (proposal.functionLines and proposal.functionLines[1] or 0) + 1
  vim.api.nvim_set_current_win(right)
  pcall(vim.api.nvim_win_set_cursor, right, { start_line, 0 })
  for _, buf in ipairs({ original, proposed, info }) do
    local opts = { buffer = buf, nowait = true, silent = true }
    vim.keymap.set('n', keys.accept, M.accept, vim.tbl_extend('force', opts, { desc = 'selfdebug: accept the fix' }))
    vim.keymap.set('n', keys.reject, M.reject, vim.tbl_extend('force', opts, { desc = 'selfdebug: reject the fix' }))
    vim.keymap.set('n', keys.close, M.reject, vim.tbl_extend('force', opts, { desc = 'selfdebug: reject the fix' }))
  end
  M.review = {
    proposal = proposal,
    bufnr = bufnr,
    client_id = client_id,
    tab = tab,
    buffers = { original, proposed, info },
    origin_win = origin_win,
  }
end

-- A command that applies a fix -> the one that proposes it (the server applies nothing).
local PROPOSING = {
  ['selfdebug.selfDebug'] = 'selfdebug.proposeFix',
  ['selfdebug.debugFailure'] = 'selfdebug.proposeFailureFix',
}

--- `selfdebug.proposeFix` (or `command`'s proposing form) for `argument` ({uri, qualname |
--- position, version?, mode?}); the answer opens the diff preview of the file the fix is in
--- (from a failing test, another file than the test's, loaded if it is not).
function M.propose(argument, bufnr, client, command)
  local params = { command = PROPOSING[command or 'selfdebug.selfDebug'], arguments = { argument } }
  client:request('workspace/executeCommand', params, function(err, result)
    if err then
      vim.notify('selfdebug: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if not (result and type(result.proposal) == 'table') then
      return -- no fix: the session report said why
    end
    local target = vim.uri_to_bufnr(result.proposal.uri)
    vim.fn.bufload(target)
    M.open_review(result.proposal, target, client.id)
  end, bufnr)
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
  if PROPOSING[command] then
    argument.version = vim.lsp.util.buf_versions[bufnr]
    M.propose(argument, bufnr, client, command)
    return
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

--- The LSP client's configuration: `M.defaults` less the plugin's own options (`review`), with
--- the handlers and client-side commands the plugin answers. `lsp/selfdebug.lua` returns it, so
--- that `vim.lsp.enable('selfdebug')` alone is a complete set-up (Neovim 0.11's `vim.lsp.config`).
function M.client_config()
  local config = vim.deepcopy(M.defaults)
  config.review = nil
  -- an empty Lua table is sent as a JSON list; the server's settings are an object
  config.settings = { selfdebug = vim.empty_dict() }
  config.handlers = { ['selfdebug/sessionReport'] = on_session_report }
  -- The code actions' "Self-debug `f`" runs here, in the client: it asks the server for a
  -- proposal (selfdebug.proposeFix) and opens the diff preview instead of applying the fix.
  local function proposing(command, context)
    local client = vim.lsp.get_client_by_id(context.client_id)
    if client then
      M.propose(command.arguments[1], context.bufnr, client, command.command)
    end
  end
  config.commands = {
    ['selfdebug.selfDebug'] = proposing,
    ['selfdebug.debugFailure'] = proposing, -- "Self-debug the failure of `test_x`"
  }
  return config
end

--- The server's configuration as Neovim resolved it (`lsp/selfdebug.lua`, then every
--- `vim.lsp.config('selfdebug', ...)` over it), or the plugin's defaults before any.
function M.resolved_config()
  local ok, resolved = pcall(function()
    return vim.lsp.config.selfdebug
  end)
  if ok and type(resolved) == 'table' and resolved.cmd then
    return resolved
  end
  return M.config
end

--- The older set-up, kept for plugin managers' `opts`: the options over the defaults (the
--- plugin's `review` options kept here, the rest given to `vim.lsp.config`), then enabled.
function M.setup(opts)
  opts = opts or {}
  M.config = vim.tbl_deep_extend('force', M.defaults, opts)
  M.did_setup = true
  local lsp = vim.deepcopy(opts)
  lsp.review = nil
  local ours = M.client_config()
  local config = vim.tbl_deep_extend('force', ours, lsp)
  -- the plugin's own handler and commands win over a user's of the same name
  config.handlers = vim.tbl_extend('force', config.handlers or {}, ours.handlers)
  config.commands = vim.tbl_extend('force', config.commands or {}, ours.commands)
  vim.lsp.config('selfdebug', config)
  vim.lsp.enable('selfdebug')
  require('selfdebug.commands').create() -- when plugin/ was not sourced (rtp appended late)
  return M.config
end

return M

-- Neovim 0.11+ finds this file on the runtimepath for `vim.lsp.config('selfdebug')`: with the
-- plugin's folder on the runtimepath, `vim.lsp.enable('selfdebug')` is the whole set-up (the
-- server `selfdebug serve` on PATH, Python buffers, the project's root). Override any field with
-- `vim.lsp.config('selfdebug', { cmd = ..., settings = { selfdebug = { mode = 'search' } } })`.
return require('selfdebug').client_config()

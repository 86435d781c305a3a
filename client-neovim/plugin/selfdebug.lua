-- The plugin's start-up: the user commands only. The server is configured by lsp/selfdebug.lua
-- and starts when you enable it (`vim.lsp.enable('selfdebug')`, or `require('selfdebug').setup()`).
if vim.g.loaded_selfdebug then
  return
end
vim.g.loaded_selfdebug = true
require('selfdebug.commands').create()

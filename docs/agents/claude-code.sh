# in the project's root folder
claude mcp add ckp -- ckp mcp "$PWD"

" CKP header lines in Markdown (Vim and Neovim): Vim's markdown syntax paints the `_` of
" ANSWERS_WHEN, SIMILAR_HIGH and SIMILAR_MID (and of any word_with_underscore) as markdownError.
" A header line is one item here, so nothing in it is read as Markdown; its field name is
" highlighted as a key.
" Install: add the folder above `after/` to 'runtimepath' (see docs/neovim.md), or copy this
" file to ~/.config/nvim/after/syntax/markdown.vim (Vim: ~/.vim/after/syntax/markdown.vim).
syntax match ckpHeaderLine /^\%(CONCEPT\|TLDR\|ANSWERS_WHEN\|SIMILAR_HIGH\|SIMILAR_MID\|CONFIDENCE\|VALIDATED\):.*$/ contains=ckpHeaderField
syntax match ckpHeaderField /^\u\+\%(_\u\+\)\?:/ contained
highlight default link ckpHeaderField Identifier

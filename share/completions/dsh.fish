# fish completion for dsh: the script comes from the dsh on PATH (`dsh completion fish`)
dsh completion fish 2>/dev/null | source

# bash completion for cudnnctl — installed as share/bash-completion/completions/cudnnctl.
# Everything (commands, options, values) comes from the tool itself: `cudnnctl __complete WORDS`
# prints one candidate per line ("WORD<TAB>description"), or __files__ / __dirs__.
_cudnnctl() {
    local line=${COMP_LINE:0:COMP_POINT} cur=${COMP_WORDS[COMP_CWORD]}
    local -a words
    # split the line on blanks only, so "--color=al" stays one word for cudnnctl
    read -ra words <<<"$line"
    [[ $line =~ [[:space:]]$ ]] && words+=("")
    [[ $cur == "=" ]] && cur=""
    local out
    out=$("${words[0]}" __complete "${words[@]:1}" 2>/dev/null) || return 0
    COMPREPLY=()
    case $out in
    __files__) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); compopt -o filenames 2>/dev/null; return 0 ;;
    __dirs__) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); compopt -o filenames 2>/dev/null; return 0 ;;
    esac
    local c last=${words[${#words[@]}-1]}
    while IFS= read -r c; do
        c=${c%%$'\t'*}
        # bash splits "--color=al" at '=': offer what follows it
        [[ $last == -*=* ]] && c=${c#*=}
        COMPREPLY+=("$c")
    done <<<"$out"
    if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]]; then
        compopt -o nospace 2>/dev/null
    fi
    return 0
}
complete -F _cudnnctl cudnnctl

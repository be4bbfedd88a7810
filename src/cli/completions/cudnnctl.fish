# fish completion for cudnnctl — installed as share/fish/vendor_completions.d/cudnnctl.fish.
# Everything comes from the tool itself: `cudnnctl __complete WORDS` prints one candidate per
# line ("WORD<TAB>description"), or __files__ / __dirs__.
function __cudnnctl_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l out ($tokens[1] __complete $tokens[2..-1] "$cur" 2>/dev/null)
    switch "$out[1]"
        case __files__
            __fish_complete_path "$cur"
        case __dirs__
            __fish_complete_directories "$cur" ""
        case '*'
            printf '%s\n' $out
    end
end
complete -c cudnnctl -f -a '(__cudnnctl_complete)'

#if CLI
import ArgumentParser

/// Exit codes beyond 0 (success), 1 (failure) and 64 (a malformed command line); see Docs/cli.md.
enum ExitCodes {
    /// `login`: no callback arrived before the timeout, or the device code expired before it was approved; `logout
    /// --end-session`: the browser did not come back from the provider's logout in time.
    static let timedOut = ExitCode(2)
    /// `login --device`: interrupted with Ctrl-C; nothing was stored.
    static let interrupted = ExitCode(130)
}
#endif

#if NIO
import Foundation

extension SystemBrowser {
    /// Why no browser can be opened on this machine.
    public enum UnavailableReason: String, Sendable, Hashable, CustomStringConvertible {
        /// An SSH session (`SSH_CONNECTION` or `SSH_TTY`): a browser would open on the far machine, if anywhere.
        case sshSession = "an SSH session"
        /// Linux without `DISPLAY` or `WAYLAND_DISPLAY`.
        case noDisplay = "no display"
        /// Neither `$BROWSER` nor `xdg-open` / `open` on the `PATH`.
        case noBrowserCommand = "no browser command"

        public var description: String { rawValue }
    }

    /// Why no browser can be opened here, or nil when one can.
    ///
    /// A `$BROWSER` that is set always counts as a browser, even over SSH (the user chose it);
    /// otherwise an SSH session, a Linux machine with no display, or no `xdg-open` / `open` on the
    /// `PATH` means nobody would see the page.
    public static func unavailableReason(environment: [String: String]) -> UnavailableReason? {
        if let browser = environment["BROWSER"], !browser.isEmpty { return nil }
        if environment["SSH_CONNECTION"] != nil || environment["SSH_TTY"] != nil { return .sshSession }
        #if os(Linux)
        if (environment["DISPLAY"] ?? "").isEmpty, (environment["WAYLAND_DISPLAY"] ?? "").isEmpty { return .noDisplay }
        #endif
        if command(environment: environment) == nil { return .noBrowserCommand }
        return nil
    }
}
#endif

#if NIO
import Foundation

/// Shows the user an authorization URL: a browser on this machine, a web view, a QR code.
public protocol BrowserOpener: Sendable {
    /// Opens `url`; throws when it cannot (the sign-in then still waits, for a user who
    /// opens the printed URL themselves).
    func open(_ url: URL) async throws
}
#endif

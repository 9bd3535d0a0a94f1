import Foundation
import OAuthFlow
import OAuthFlowTesting

@testable import OAuthFlowApple

/// The user at the sign-in sheet, for the app sign-in's tests on Linux: a `WebAuthenticator` that plays what
/// `ASWebAuthenticationSession` and the person do, against a `SimulatedProvider`.
///
/// It waits for the callback the way the system does (``WebAuthenticationCallback``: the redirect's scheme, or its
/// https host and path) and hands back only a URL that matches; the provider's approval goes to the redirect URI the
/// request carries, so a mismatch between the two fails here as it would on a device.
final class ScriptedUser: WebAuthenticator {
    /// What the user does with the next sheet.
    enum Move: Sendable {
        /// Signs in and consents as `subject`.
        case approve(subject: String)
        /// Signs in and declines (`error=access_denied` in the callback).
        case deny
        /// Closes the sheet (`ASWebAuthenticationSessionError.Code.canceledLogin`).
        case cancel
    }

    /// One sheet the sign-in opened.
    struct Sheet: Sendable {
        var url: URL
        var redirectURI: URL
        var prefersEphemeral: Bool
        var callback: WebAuthenticationCallback
    }

    let provider: SimulatedProvider
    private let moves: Locked<[Move]>
    private let shown = Locked<[Sheet]>([])

    init(_ provider: SimulatedProvider, moves: [Move] = [.approve(subject: "user-1")]) {
        self.provider = provider
        self.moves = Locked(moves)
    }

    /// Every sheet opened, in order.
    var sheets: [Sheet] { shown.current }

    /// Queues what the user does with the next sheets.
    func then(_ more: Move...) { moves.withLock { $0 += more } }

    func authenticate(at url: URL, redirectURI: URL, prefersEphemeral: Bool) async throws -> URL {
        let callback = try WebAuthenticationCallback(redirectURI: redirectURI, matchesHTTPS: true)
        shown.withLock { $0.append(Sheet(url: url, redirectURI: redirectURI, prefersEphemeral: prefersEphemeral, callback: callback)) }
        let move = moves.withLock { $0.isEmpty ? Move.cancel : $0.removeFirst() }
        let sent: URL
        switch move {
        case .cancel:
            // What the session's completion handler gets when the sheet is closed.
            let closed = NSError(domain: Self.sessionErrorDomain, code: Self.canceledLogin)
            return try WebAuthenticationCallback.outcome(url: nil, error: closed, domain: Self.sessionErrorDomain, cancelled: Self.canceledLogin)
                .get()
        case .approve(let subject): sent = try await provider.approve(url, subject: subject)
        case .deny: sent = try await provider.deny(url)
        }
        guard callback.matches(sent) else {
            // The system would keep the sheet open on a page the app never sees; the user then closes it.
            throw ScriptError("the provider sent the browser to \(sent.absoluteString), which \(callback) does not match")
        }
        return try WebAuthenticationCallback.outcome(url: sent, error: nil, domain: Self.sessionErrorDomain, cancelled: Self.canceledLogin).get()
    }

    /// `ASWebAuthenticationSessionErrorDomain` and `ASWebAuthenticationSessionError.Code.canceledLogin`, as the
    /// AuthenticationServices shim declares them.
    static let sessionErrorDomain = "com.apple.AuthenticationServices.WebAuthenticationSession"
    static let canceledLogin = 1
}

extension WebAuthenticationCallback {
    /// Whether the system would hand `url` to the app: its scheme, or its https host and path.
    func matches(_ url: URL) -> Bool {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return false }
        switch self {
        case .customScheme(let scheme):
            return components.scheme?.lowercased() == scheme.lowercased()
        case .https(let host, let path):
            return components.scheme?.lowercased() == "https" && components.host?.lowercased() == host.lowercased()
                && (components.path.isEmpty ? "/" : components.path) == path
        }
    }
}

/// A script that went otherwise than the test meant.
struct ScriptError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// The Apple glue of an app's sign-in: `ASWebAuthenticationSession`, nothing else. What it decides (the callback's form,
// what an error means) is WebAuthenticationCallback's, compiled and tested on Linux; these lines are type-checked on
// Linux against Shims/AppleSDK/AuthenticationServices (scripts/apple-typecheck.sh) and run only on an Apple platform.
// tvOS and watchOS have the session but no presentation context provider: no app sign-in there.
#if canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
import AuthenticationServices
import Foundation
import OAuthFlow
#if os(iOS) || os(visionOS)
import UIKit
#elseif os(macOS)
import AppKit
#endif

/// An app's sign-in sheet: `ASWebAuthenticationSession`, presented from a window of the app.
///
/// ```swift
/// let result = try await oauth.signIn(to: "google-ios", authenticator: SystemWebAuthenticator())
/// ```
///
/// A private-use redirect waits for its scheme (`Callback.customScheme`, or `callbackURLScheme` before iOS 17.4 and
/// macOS 14.4); a claimed https redirect for its host and path (`Callback.https(host:path:)`, iOS 17.4 and macOS 14.4
/// and later). The user's cancel is `FlowError` `cancelled`; cancelling the task closes the sheet.
@MainActor
public final class SystemWebAuthenticator: NSObject, WebAuthenticator, ASWebAuthenticationPresentationContextProviding {
    private let anchor: ASPresentationAnchor
    /// The session on screen: the system does not keep it.
    private var session: ASWebAuthenticationSession?

    /// - Parameter presentationAnchor: The window the sheet is presented from.
    public init(presentationAnchor: ASPresentationAnchor) {
        anchor = presentationAnchor
        super.init()
    }

    /// Presents from the app's key window.
    public override convenience init() {
        #if os(iOS) || os(visionOS)
        let windows = UIApplication.shared.connectedScenes.compactMap { $0 as? UIWindowScene }.flatMap(\.windows)
        self.init(presentationAnchor: windows.first(where: \.isKeyWindow) ?? windows.first ?? ASPresentationAnchor())
        #elseif os(macOS)
        self.init(presentationAnchor: NSApplication.shared.keyWindow ?? ASPresentationAnchor())
        #else
        self.init(presentationAnchor: ASPresentationAnchor())
        #endif
    }

    public func authenticate(at url: URL, redirectURI: URL, prefersEphemeral: Bool) async throws -> URL {
        let callback: WebAuthenticationCallback
        if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) {
            callback = try WebAuthenticationCallback(redirectURI: redirectURI, matchesHTTPS: true)
        } else {
            callback = try WebAuthenticationCallback(redirectURI: redirectURI, matchesHTTPS: false)
        }
        try Task.checkCancellation()
        session?.cancel()
        let once = Locked<CheckedContinuation<URL, any Error>?>(nil)
        let handler: @Sendable (URL?, (any Error)?) -> Void = { url, error in
            let outcome = WebAuthenticationCallback.outcome(
                url: url, error: error, domain: ASWebAuthenticationSessionErrorDomain,
                cancelled: ASWebAuthenticationSessionError.Code.canceledLogin.rawValue)
            once.withLock { waiting in
                waiting?.resume(with: outcome)
                waiting = nil
            }
        }
        do {
            return try await present(url: url, callback: callback, prefersEphemeral: prefersEphemeral, handler: handler, once: once)
        } catch let error as FlowError where error.code == .cancelled && Task.isCancelled {
            // The task was cancelled and closed the sheet: not the user's cancel.
            throw CancellationError()
        }
    }

    /// Starts the session and waits for its completion handler; cancelling the task closes the sheet.
    private func present(
        url: URL, callback: WebAuthenticationCallback, prefersEphemeral: Bool, handler: @escaping @Sendable (URL?, (any Error)?) -> Void,
        once: Locked<CheckedContinuation<URL, any Error>?>
    ) async throws -> URL {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
                once.withLock { $0 = continuation }
                let session = Self.session(url: url, callback: callback, handler: handler)
                session.prefersEphemeralWebBrowserSession = prefersEphemeral
                session.presentationContextProvider = self
                self.session = session
                if !session.start() {
                    handler(
                        nil,
                        FlowError(
                            .invalidRedirectURI, "the sign-in sheet could not start: the app has no window in a foreground scene to present it from"))
                }
            }
        } onCancel: {
            Task { @MainActor in self.session?.cancel() }
        }
    }

    /// The session, waiting for `callback` in the form the system offers.
    private static func session(
        url: URL, callback: WebAuthenticationCallback, handler: @escaping @Sendable (URL?, (any Error)?) -> Void
    ) -> ASWebAuthenticationSession {
        if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) {
            let matching: ASWebAuthenticationSession.Callback
            switch callback {
            case .customScheme(let scheme): matching = .customScheme(scheme)
            case .https(let host, let path): matching = .https(host: host, path: path)
            }
            return ASWebAuthenticationSession(url: url, callback: matching, completionHandler: handler)
        }
        guard case .customScheme(let scheme) = callback else {
            // WebAuthenticationCallback refuses an https redirect before iOS 17.4 and macOS 14.4.
            return ASWebAuthenticationSession(url: url, callbackURLScheme: nil, completionHandler: handler)
        }
        return ASWebAuthenticationSession(url: url, callbackURLScheme: scheme, completionHandler: handler)
    }

    public func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        anchor
    }
}
#endif

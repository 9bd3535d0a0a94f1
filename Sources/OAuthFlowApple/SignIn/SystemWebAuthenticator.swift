// The Apple glue of an app's sign-in: `ASWebAuthenticationSession`, nothing else. What it decides (the callback's form,
// what an error means, which window presents the sheet, the one outcome of a sheet) is WebAuthenticationCallback's,
// PresentationWindow's and WebAuthenticationOutcome's, compiled and tested on Linux; these lines are type-checked on
// Linux against Shims/AppleSDK (AuthenticationServices, UIKit; scripts/apple-typecheck.sh) and run only on an Apple
// platform. tvOS and watchOS have the session but no presentation context provider: no app sign-in there.
#if canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
import AuthenticationServices
import Foundation
import OAuthFlow
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// An app's sign-in sheet: `ASWebAuthenticationSession`, presented from a window of the app.
///
/// ```swift
/// let result = try await oauth.signIn(to: "google-ios", authenticator: SystemWebAuthenticator())
/// ```
///
/// The window is looked up when the sheet opens. The user's cancel is `FlowError` `cancelled`.
@MainActor
public final class SystemWebAuthenticator: NSObject, WebAuthenticator, ASWebAuthenticationPresentationContextProviding {
    /// The window to present from, looked up when a sheet opens.
    private let window: @MainActor () -> ASPresentationAnchor?
    /// The sheet on screen (the system does not keep the session), its outcome and the window it was opened from.
    private var running: (session: ASWebAuthenticationSession, outcome: WebAuthenticationOutcome<URL>, anchor: ASPresentationAnchor)?

    private init(window: @escaping @MainActor () -> ASPresentationAnchor?) {
        self.window = window
        super.init()
    }

    /// - Parameter presentationAnchor: The window the sheet is presented from, held weakly: when it is gone, a sign-in
    ///   throws `FlowError` `invalidRedirectURI` saying so.
    public convenience init(presentationAnchor: ASPresentationAnchor) {
        self.init { [weak presentationAnchor] in presentationAnchor }
    }

    #if canImport(UIKit)
    /// Presents from the key window of `windowScene` (held weakly) when it is foreground-active: for an app extension,
    /// or an app with several scenes that knows which one asks.
    public convenience init(windowScene: UIWindowScene) {
        self.init { [weak windowScene] in
            windowScene.flatMap { PresentationWindow.foreground(among: [$0]) }
        }
    }

    /// Presents from the key window of the app's foreground-active scene, looked up when the sheet opens. Not in an
    /// app extension, which has no `UIApplication.shared`: give it a window or a scene.
    @available(iOSApplicationExtension, unavailable)
    @available(visionOSApplicationExtension, unavailable)
    public override convenience init() {
        self.init(window: PresentationWindow.appWindow)
    }
    #elseif canImport(AppKit)
    /// Presents from the app's key window, or its main window, looked up when the sheet opens.
    public override convenience init() {
        self.init(window: PresentationWindow.appWindow)
    }
    #endif

    public func authenticate(at url: URL, redirectURI: URL, prefersEphemeral: Bool) async throws -> URL {
        let callback: WebAuthenticationCallback
        if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) {
            callback = try WebAuthenticationCallback(redirectURI: redirectURI, matchesHTTPS: true)
        } else {
            callback = try WebAuthenticationCallback(redirectURI: redirectURI, matchesHTTPS: false)
        }
        try Task.checkCancellation()
        if let previous = running {
            // A newer sign-in replaces the sheet: the older one ends now, whether or not the system reports it.
            running = nil
            previous.outcome.finish(.failure(FlowError.cancelled("another sign-in replaced this one's sheet")))
            previous.session.cancel()
        }
        guard let anchor = window() else {
            throw FlowError.appSignIn(
                "the sign-in sheet has no window to be presented from: no window of a foreground-active scene (or the window given is gone); sign in once the app's scene is in the foreground"
            )
        }
        let outcome = WebAuthenticationOutcome<URL>()
        let handler: @Sendable (URL?, (any Error)?) -> Void = { url, error in
            outcome.finish(
                WebAuthenticationCallback.outcome(
                    url: url, error: error, domain: ASWebAuthenticationSessionErrorDomain,
                    cancelled: ASWebAuthenticationSessionError.Code.canceledLogin.rawValue))
        }
        let session = Self.session(url: url, callback: callback, handler: handler)
        session.prefersEphemeralWebBrowserSession = prefersEphemeral
        session.presentationContextProvider = self
        running = (session, outcome, anchor)
        defer { if running?.outcome === outcome { running = nil } }
        do {
            return try await present(session, outcome: outcome)
        } catch let error as FlowError where error.code == .cancelled && Task.isCancelled {
            // The task was cancelled and closed the sheet: not the user's cancel.
            throw CancellationError()
        }
    }

    /// Starts the session and waits for its outcome; cancelling the task ends the wait at once and closes the sheet.
    private func present(_ session: ASWebAuthenticationSession, outcome: WebAuthenticationOutcome<URL>) async throws -> URL {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
                outcome.hand(to: continuation)
                // Cancelled before the sheet opened: nothing to show.
                guard !outcome.isFinished else { return }
                if !session.start() {
                    outcome.finish(
                        .failure(
                            FlowError.appSignIn(
                                "the sign-in sheet could not start: the app has no window in a foreground scene to present it from")))
                }
            }
        } onCancel: {
            // This call's sheet only: a newer sign-in's stays.
            if outcome.finish(.failure(CancellationError())) {
                Task { @MainActor in self.close(outcome) }
            }
        }
    }

    /// Closes the sheet of `outcome` when it is still the one on screen.
    private func close(_ outcome: WebAuthenticationOutcome<URL>) {
        guard let running, running.outcome === outcome else { return }
        self.running = nil
        running.session.cancel()
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

    /// The window looked up when the sheet opened.
    public func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        if let running, running.session === session { return running.anchor }
        // A session this authenticator no longer runs: any window will do for a sheet about to be cancelled.
        return running?.anchor ?? window() ?? ASPresentationAnchor()
    }
}
#endif

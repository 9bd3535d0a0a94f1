// The Apple glue of Sign in with Apple in an app: `ASAuthorizationController` with an Apple ID request, nothing else.
// What it decides (the credential's text, what an error means, the one outcome of a sheet, which window presents it)
// is AppleIDCredential's, WebAuthenticationOutcome's and PresentationWindow's, compiled and tested on Linux; these lines
// are type-checked on Linux against Shims/AppleSDK (scripts/apple-typecheck.sh) and run only on an Apple platform.
#if canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
import AuthenticationServices
import Foundation
import OAuthFlow
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// The system's Sign in with Apple sheet (`ASAuthorizationController` with an `ASAuthorizationAppleIDRequest`),
/// presented from a window of the app, and Apple's answer about a user (`ASAuthorizationAppleIDProvider`).
///
/// The user's cancel is `FlowError` `cancelled`; cancelling the task ends the wait at once and cancels the request.
@MainActor
public final class SystemAppleIDAuthorizer: NSObject, AppleIDAuthorizer, ASAuthorizationControllerDelegate,
    ASAuthorizationControllerPresentationContextProviding
{
    /// The window to present from, looked up when the sheet opens.
    private let window: @MainActor () -> ASPresentationAnchor?
    /// The request on screen, its outcome and the window it was opened from.
    private var running: (controller: ASAuthorizationController, outcome: WebAuthenticationOutcome<AppleIDCredential>, anchor: ASPresentationAnchor)?

    nonisolated private init(window: @escaping @MainActor () -> ASPresentationAnchor?) {
        self.window = window
        super.init()
    }

    /// - Parameter presentationAnchor: The window the sheet is presented from, held weakly.
    public convenience init(presentationAnchor: ASPresentationAnchor) {
        self.init { [weak presentationAnchor] in presentationAnchor }
    }

    #if canImport(UIKit)
    /// Presents from the key window of the app's foreground-active scene, looked up when the sheet opens. Made
    /// anywhere (it touches no window until then); not in an app extension, which has no `UIApplication.shared`: give
    /// it a window.
    @available(iOSApplicationExtension, unavailable)
    @available(visionOSApplicationExtension, unavailable)
    nonisolated public override convenience init() {
        self.init(window: PresentationWindow.appWindow)
    }
    #elseif canImport(AppKit)
    /// Presents from the app's key window, or its main window, looked up when the sheet opens. Made anywhere.
    nonisolated public override convenience init() {
        self.init(window: PresentationWindow.appWindow)
    }
    #endif

    public func authorize(scopes: [AppleIDCredential.Scope], nonce: String) async throws -> AppleIDCredential {
        try await authorize(scopes: scopes, nonce: nonce, user: nil)
    }

    public func authorize(scopes: [AppleIDCredential.Scope], nonce: String, user: String?) async throws -> AppleIDCredential {
        try Task.checkCancellation()
        if let previous = running {
            // A newer request replaces the sheet: the older one ends now.
            running = nil
            previous.outcome.finish(.failure(FlowError.cancelled("another Sign in with Apple request replaced this one")))
            previous.controller.cancel()
        }
        guard let anchor = window() else {
            throw FlowError.appSignIn(
                "the Sign in with Apple sheet has no window to be presented from; sign in once the app's scene is in the foreground")
        }
        let request = ASAuthorizationAppleIDProvider().createRequest()
        Self.fill(request, scopes: scopes, nonce: nonce, user: user)
        let controller = ASAuthorizationController(authorizationRequests: [request])
        controller.delegate = self
        controller.presentationContextProvider = self
        let outcome = WebAuthenticationOutcome<AppleIDCredential>()
        running = (controller, outcome, anchor)
        defer { if running?.outcome === outcome { running = nil } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<AppleIDCredential, any Error>) in
                outcome.hand(to: continuation)
                guard !outcome.isFinished else { return }
                controller.performRequests()
            }
        } onCancel: {
            if outcome.finish(.failure(CancellationError())) {
                Task { @MainActor in self.close(outcome) }
            }
        }
    }

    public nonisolated func credentialState(forUser user: String) async throws -> AppleIDCredential.State {
        let state = try await ASAuthorizationAppleIDProvider().credentialState(forUserID: user)
        return switch state {
        case .authorized: .authorized
        case .revoked: .revoked
        case .transferred: .transferred
        case .notFound: .notFound
        @unknown default: .unknown(state.rawValue)
        }
    }

    /// Sets what the library asks of an Apple ID request: the scopes, the nonce's SHA-256, the user to migrate.
    nonisolated static func fill(_ request: ASAuthorizationAppleIDRequest, scopes: [AppleIDCredential.Scope], nonce: String, user: String?) {
        request.requestedScopes = scopes.map { $0 == .fullName ? ASAuthorization.Scope.fullName : ASAuthorization.Scope.email }
        request.nonce = nonce
        request.user = user
    }

    /// Cancels the request of `outcome` when it is still the one on screen.
    private func close(_ outcome: WebAuthenticationOutcome<AppleIDCredential>) {
        guard let running, running.outcome === outcome else { return }
        self.running = nil
        running.controller.cancel()
    }

    public func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization) {
        guard let running, running.controller === controller else { return }
        running.outcome.finish(Result { try AppleIDCredential(authorization) })
    }

    public func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
        guard let running, running.controller === controller else { return }
        running.outcome.finish(.failure(AppleIDCredential.failure(error)))
    }

    /// The window looked up when the sheet opened.
    public func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor {
        if let running, running.controller === controller { return running.anchor }
        return running?.anchor ?? window() ?? ASPresentationAnchor()
    }
}

extension AppleIDCredential {
    /// The Apple ID credential of a completed authorization (the sheet's, or Apple's button's).
    ///
    /// - Throws: `FlowError` `invalid_redirect_uri` when the authorization holds another kind of credential.
    init(_ authorization: ASAuthorization) throws {
        guard let credential = authorization.credential as? ASAuthorizationAppleIDCredential else {
            throw FlowError.appSignIn("the Sign in with Apple sheet returned no Apple ID credential")
        }
        self.init(
            user: credential.user, identityToken: credential.identityToken, authorizationCode: credential.authorizationCode,
            email: credential.email, fullName: credential.fullName)
    }

    /// What an error of the sheet (or of Apple's button) means: the user's cancel (`ASAuthorizationError.canceled`) is
    /// `FlowError` `cancelled`; any other is passed on as the system said it.
    static func failure(_ error: any Error) -> any Error {
        failure(error, domain: ASAuthorizationErrorDomain, cancelled: ASAuthorizationError.Code.canceled.rawValue)
    }
}
#endif

import Foundation
import OAuthFlow

/// What `ASWebAuthenticationSession` is told to wait for, from the redirect URI: a custom scheme, or on iOS 17.4 and
/// macOS 14.4 and later an https host and path. Decided here, in code compiled and tested on Linux; the Apple glue
/// (`SystemWebAuthenticator`) only hands it to the session.
enum WebAuthenticationCallback: Sendable, Hashable {
    case customScheme(String)
    case https(host: String, path: String)

    /// The callback `redirectURI` needs.
    ///
    /// - Parameters:
    ///   - redirectURI: The redirect URI of the sign-in.
    ///   - matchesHTTPS: Whether the session can wait for an https link (`ASWebAuthenticationSession.Callback`,
    ///     iOS 17.4 and macOS 14.4 and later).
    /// - Throws: `FlowError` `invalidRedirectURI` for an https redirect the session cannot wait for, or one without
    ///   a host.
    init(redirectURI: URL, matchesHTTPS: Bool) throws {
        guard let components = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false), let scheme = components.scheme, !scheme.isEmpty
        else {
            throw FlowError.appSignIn("the redirect URI `\(redirectURI.absoluteString)` has no scheme")
        }
        guard scheme.lowercased() == "https" else {
            self = .customScheme(scheme)
            return
        }
        guard let host = components.host, !host.isEmpty else {
            throw FlowError.appSignIn("the redirect URI `\(redirectURI.absoluteString)` names no host")
        }
        guard matchesHTTPS else {
            throw FlowError.appSignIn(
                "the claimed https redirect `\(redirectURI.absoluteString)` needs iOS 17.4 or macOS 14.4 (ASWebAuthenticationSession.Callback.https): sign in with the private-use redirect on older systems"
            )
        }
        self = .https(host: host, path: components.path.isEmpty ? "/" : components.path)
    }

    /// What the session's completion handler reports, as a result: the callback URL; `FlowError` `cancelled` for the
    /// user's cancel (`ASWebAuthenticationSessionError.Code.canceledLogin` in `ASWebAuthenticationSessionErrorDomain`,
    /// with nothing in its `userInfo`, as Auth0.swift tells it apart); `FlowError` `invalidRedirectURI` for a sheet the
    /// system could not show, or a `canceledLogin` that carries a reason (a setup error, such as a claimed https
    /// redirect without its associated domain), naming it; any other error as it came. A cancel the app made (the
    /// task's) never reaches here: `WebAuthenticationOutcome` has finished with it already.
    ///
    /// - Parameters:
    ///   - url: The callback URL the handler got.
    ///   - error: The error it got.
    ///   - domain: `ASWebAuthenticationSessionErrorDomain`.
    ///   - cancelled: The raw value of `ASWebAuthenticationSessionError.Code.canceledLogin`.
    static func outcome(url: URL?, error: (any Error)?, domain: String, cancelled: Int) -> Result<URL, any Error> {
        if let error {
            let bridged = error as NSError
            guard bridged.domain == domain else { return .failure(error) }
            if bridged.code == cancelled, bridged.userInfo.isEmpty {
                return .failure(FlowError.cancelled("the sign-in was cancelled: the sheet was closed before the provider sent the browser back"))
            }
            let reason = bridged.userInfo.isEmpty ? "" : ": \(bridged.localizedDescription)"
            let what = bridged.code == cancelled ? "the system ended the sign-in sheet" : "the system could not show the sign-in sheet"
            return .failure(
                FlowError.appSignIn(
                    "\(what) (\(domain) \(bridged.code)\(reason)): check the redirect's setup (a claimed https redirect needs its associated domain) and give a presentation anchor in a window of a foreground scene"
                ))
        }
        guard let url else {
            return .failure(FlowError.appSignIn("the sign-in sheet closed without a callback URL and without an error"))
        }
        return .success(url)
    }
}

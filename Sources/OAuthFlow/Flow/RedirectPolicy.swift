import Foundation

/// Which redirect URIs a native client may use (RFC 8252 §7, RFC 9700 §2.1).
enum RedirectPolicy {
    static func check(_ uri: URL) throws {
        guard let components = URLComponents(url: uri, resolvingAgainstBaseURL: false), let scheme = components.scheme?.lowercased() else {
            throw FlowError(.invalidRedirectURI, "redirect URI `\(uri)` has no scheme")
        }
        if components.fragment != nil {
            throw FlowError(.invalidRedirectURI, "redirect URI `\(uri)` must not have a fragment (RFC 6749 §3.1.2)")
        }
        if scheme == "http", !Loopback.isLoopbackHost(components.host ?? "") {
            throw FlowError(.invalidRedirectURI, "redirect URI `\(uri)` uses plain http to a host that is not loopback")
        }
    }
}

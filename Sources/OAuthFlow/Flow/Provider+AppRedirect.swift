import Foundation

/// The redirect URI of an app's sign-in (RFC 8252 §7.1 and §7.2): built from the descriptor's `redirect` section, or
/// the one the host registered, checked against it.
extension Provider {
    /// The redirect URI an app signs in with: a private-use scheme (RFC 8252 §7.1) or a claimed https link (§7.2).
    ///
    /// With `requested` nil, it is built from the descriptor's `redirect` section; a `requested` URI, the one
    /// registered at the provider, wins once it fits that section.
    ///
    /// ```swift
    /// let google = try oauth.provider("google-ios")
    /// let redirect = try google.appRedirectURI(clientID: "1234-abc.apps.googleusercontent.com", bundleIdentifier: "com.example.app")
    /// // com.googleusercontent.apps.1234-abc:/oauth2redirect
    /// ```
    ///
    /// - Parameters:
    ///   - clientID: The app's client id at the provider.
    ///   - bundleIdentifier: The app's bundle identifier (`Bundle.main.bundleIdentifier`), for `{bundle_id}` and the
    ///     check.
    ///   - requested: The redirect URI the host registered at the provider; nil builds one from the descriptor.
    ///   - claimedHTTPS: Build the claimed https link instead of the private-use URI.
    /// - Returns: The redirect URI to send, exactly as the provider must have it registered.
    /// - Throws: ``FlowError`` `invalidRedirectURI`, with a sentence that says what to change: the provider takes web
    ///   redirects only (`redirect.web_only`) or answers with `form_post`, the descriptor names no app redirect of the
    ///   kind asked for, a value it needs is missing, or `requested` does not fit.
    public func appRedirectURI(clientID: String, bundleIdentifier: String?, requested: URL? = nil, claimedHTTPS: Bool = false) throws -> URL {
        try refuseAppSignIn()
        let app = policy.appRedirect
        let values = AppRedirectValues(provider: self, clientID: clientID, bundleIdentifier: bundleIdentifier)
        if let requested {
            try checkAppRedirect(requested, app: app, values: values)
            return requested
        }
        let template: String
        if claimedHTTPS {
            guard let link = app.claimedHTTPS else {
                throw FlowError(
                    .invalidRedirectURI,
                    "the descriptor of \(displayName) names no claimed https redirect (`redirect.claimed_https`): give the https redirect URI registered there"
                )
            }
            template = link
        } else {
            guard let uri = app.privateUseURI else {
                let other = app.claimedHTTPS == nil ? "" : " (it names a claimed https one: ask for that)"
                throw FlowError(
                    .invalidRedirectURI,
                    "the descriptor of \(displayName) names no private-use redirect for apps (`redirect.private_use_scheme`)\(other): give the redirect URI registered there, or sign in to the provider's app client, often a descriptor of its own (Docs/providers.md, column App client)"
                )
            }
            template = uri
        }
        let text = try values.fill(template)
        guard let url = URL(string: text), let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme, Self.isSchemeName(scheme)
        else {
            throw FlowError(
                .invalidRedirectURI, "the app redirect URI of \(displayName) is not a valid URI once filled in: `\(TerminalText.escaped(text))`")
        }
        try checkAppRedirect(url, app: app, values: values)
        return url
    }

    /// Refuses a provider no app can sign in to: one that takes web redirect URIs only, or answers with a POST.
    private func refuseAppSignIn() throws {
        if policy.webRedirectOnly {
            throw FlowError(
                .invalidRedirectURI,
                "\(displayName) takes only https redirect URIs on a web domain registered with it (`redirect.web_only`), which an app's sign-in cannot receive: sign in through a web service's routes (Docs/web.md)"
            )
        }
        if policy.responseMode == .formPost || policy.responseMode == .formPostJWT {
            throw FlowError(
                .invalidRedirectURI,
                "\(displayName) answers with `response_mode=\(policy.responseMode.rawValue)`: the browser POSTs the answer to a web server, and an app's redirect URI (a private-use scheme or a claimed https link) receives no POST; sign in through a web service's routes (Docs/web.md)"
            )
        }
    }

    /// Checks an app redirect URI: no fragment, not plain http, a scheme an app can own, and the descriptor's form.
    private func checkAppRedirect(_ uri: URL, app: Policy.AppRedirect, values: AppRedirectValues) throws {
        guard let components = URLComponents(url: uri, resolvingAgainstBaseURL: false), let scheme = components.scheme?.lowercased(),
            Self.isSchemeName(scheme)
        else {
            throw FlowError(.invalidRedirectURI, "redirect URI `\(TerminalText.escaped(uri.absoluteString))` has no valid scheme")
        }
        let shown = TerminalText.escaped(uri.absoluteString)
        if components.fragment != nil {
            throw FlowError(.invalidRedirectURI, "redirect URI `\(shown)` must not have a fragment (RFC 6749 §3.1.2)")
        }
        if scheme == "http" {
            throw FlowError(
                .invalidRedirectURI,
                "redirect URI `\(shown)` is plain http: an app's sign-in returns to a private-use scheme (RFC 8252 §7.1) or a claimed https link (§7.2); a loopback redirect needs a listener (`signIn(to:browser:)` of OAuthFlowLoopback)"
            )
        }
        if Self.schemesNoAppOwns.contains(scheme) {
            throw FlowError(.invalidRedirectURI, "redirect URI `\(shown)` has the scheme `\(scheme)`, which no app registers")
        }
        if scheme == "https" {
            guard let host = components.host, !host.isEmpty else {
                throw FlowError(.invalidRedirectURI, "redirect URI `\(shown)` names no host")
            }
            // Checked against the descriptor's link when every value it needs is at hand.
            if let link = app.claimedHTTPS, let expected = try? values.fill(link), let wanted = URLComponents(string: expected),
                wanted.host?.lowercased() != host.lowercased() || Self.path(of: wanted) != Self.path(of: components)
            {
                throw FlowError(
                    .invalidRedirectURI,
                    "redirect URI `\(shown)` is not the claimed https redirect \(displayName) documents (`redirect.claimed_https`): `\(TerminalText.escaped(expected))`"
                )
            }
            return
        }
        guard let template = app.privateUseScheme, let expected = try? values.fill(template) else { return }
        let allowed = [expected.lowercased()] + (values.bundleIdentifier.map { [$0.lowercased()] } ?? [])
        if !allowed.contains(scheme) {
            let bundle = values.bundleIdentifier.map { " or the app's bundle identifier `\(TerminalText.escaped($0))`" } ?? ""
            throw FlowError(
                .invalidRedirectURI,
                "redirect URI `\(shown)` has the scheme `\(scheme)`, but \(displayName) takes app redirects with the scheme `\(TerminalText.escaped(expected))` (`redirect.private_use_scheme`)\(bundle): register one of them as the app's URL type and at the provider"
            )
        }
    }

    private static func path(of components: URLComponents) -> String {
        components.path.isEmpty ? "/" : components.path
    }

    /// RFC 3986 §3.1: a letter, then letters, digits, `+`, `-` and `.`.
    private static func isSchemeName(_ scheme: String) -> Bool {
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return scheme.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0))
        }
    }

    /// Schemes a browser handles itself, which no app's redirect can be.
    private static let schemesNoAppOwns: Set<String> = ["javascript", "data", "file", "about", "blob", "vbscript", "ftp", "ws", "wss"]
}

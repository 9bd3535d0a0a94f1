import Foundation

/// An app's redirect URIs, from the descriptor's `redirect` section: the private-use scheme (RFC 8252 §7.1,
/// `private_use_scheme`, and `private_use_uri` when the provider documents a whole URI) and the claimed https link
/// (RFC 8252 §7.2, `claimed_https`). Each template is checked once, when the provider is resolved (lint reports the
/// same refusals where they are written); the descriptor's `{variables}` are filled in then, and what only the app's
/// sign-in knows (`{client_id}`, `{reversed_client_id}`, `{bundle_id}`) when it runs (`Provider.appRedirectURI`).
extension Provider.Policy {
    /// The app redirect templates of a resolved provider: its variables filled in where they have values.
    package struct AppRedirect: Sendable, Hashable {
        /// The scheme of a private-use redirect URI; nil when the descriptor names none.
        package var privateUseScheme: String?
        /// The whole private-use redirect URI: `private_use_uri`, or `SCHEME:/oauth2redirect`.
        package var privateUseURI: String?
        /// The claimed https redirect URI.
        package var claimedHTTPS: String?

        /// Whether the descriptor names any app redirect.
        package var isDeclared: Bool { privateUseScheme != nil || claimedHTTPS != nil }

        /// What an app's sign-in fills in, beside the descriptor's variables.
        package static let appPlaceholders: Set<String> = ["client_id", "reversed_client_id", "bundle_id"]

        /// The path of the redirect URI an app sign-in builds from the scheme alone: one slash after the scheme, as
        /// RFC 8252 §7.1 writes it (`com.example.app:/oauth2redirect`).
        package static let defaultPath = "/oauth2redirect"
    }
}

extension ProviderDescriptor.Redirect {
    /// The key path of each app redirect setting.
    static let schemeSetting = ["redirect", "private_use_scheme"]
    static let uriSetting = ["redirect", "private_use_uri"]
    static let claimedSetting = ["redirect", "claimed_https"]

    /// The app redirect templates, each checked: placeholders the descriptor declares or the sign-in fills, a scheme of
    /// URI scheme characters, a whole URI that begins with its scheme, an https link with a host; no query or fragment.
    func appRedirect(declared: ProviderDescriptor.VariableNames, _ found: inout PolicyRefusals) -> Provider.Policy.AppRedirect {
        var result = Provider.Policy.AppRedirect()
        if let scheme = privateUseScheme {
            if checkPlaceholders(scheme, at: Self.schemeSetting, declared: declared, &found) {
                let literal = ProviderDescriptor.parameterParts(scheme).compactMap { if case .text(let text) = $0 { text } else { nil } }.joined()
                let startsWell =
                    ProviderDescriptor.parameterParts(scheme).first.map {
                        if case .text(let text) = $0 { text.first?.isLetter == true } else { true }
                    } ?? false
                if !startsWell || !literal.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) {
                    found.refuse(
                        Self.schemeSetting,
                        "is not a URI scheme: a letter, then letters, digits, `+`, `-` and `.` (RFC 3986 §3.1), such as `com.example.app`; give the scheme alone, and the whole URI in `redirect.private_use_uri`"
                    )
                } else if ["http", "https"].contains(scheme.lowercased()) {
                    found.refuse(
                        Self.schemeSetting, "is `\(scheme)`, which no app owns: an https redirect an app claims goes in `redirect.claimed_https`")
                } else {
                    result.privateUseScheme = fill(scheme, found.variables)
                    result.privateUseURI = fill(scheme, found.variables) + ":" + Provider.Policy.AppRedirect.defaultPath
                }
            }
        }
        if let uri = privateUseURI {
            if let scheme = privateUseScheme {
                if checkPlaceholders(uri, at: Self.uriSetting, declared: declared, &found) {
                    if !uri.lowercased().hasPrefix(scheme.lowercased() + ":") {
                        found.refuse(Self.uriSetting, "does not begin with `\(scheme):`, the scheme `redirect.private_use_scheme` names")
                    } else if let problem = Self.shapeProblem(uri) {
                        found.refuse(Self.uriSetting, problem)
                    } else if result.privateUseScheme != nil {
                        result.privateUseURI = fill(uri, found.variables)
                    }
                }
            } else {
                found.refuse(Self.uriSetting, "needs `redirect.private_use_scheme`: the scheme the app registers, which the URI begins with")
            }
        }
        if let link = claimedHTTPS, checkPlaceholders(link, at: Self.claimedSetting, declared: declared, &found) {
            let template = URLTemplate(link)
            let host = link.dropFirst("https://".count).prefix { $0 != "/" }
            if template.schemeIsHTTP.https == false || host.isEmpty {
                found.refuse(
                    Self.claimedSetting,
                    "is not an https URL with a host: a claimed redirect is an https link the app's associated domains claim (RFC 8252 §7.2)")
            } else if let problem = Self.shapeProblem(link) ?? template.shapeProblem {
                found.refuse(Self.claimedSetting, problem)
            } else {
                result.claimedHTTPS = fill(link, found.variables)
            }
        }
        return result
    }

    /// Refuses each placeholder of `template` that names neither a declared variable nor what the sign-in fills in;
    /// true when there is none.
    private func checkPlaceholders(
        _ template: String, at setting: [String], declared: ProviderDescriptor.VariableNames, _ found: inout PolicyRefusals
    ) -> Bool {
        var known = true
        for name in ProviderDescriptor.parameterVariables(in: template)
        where !declared.contains(name) && !Provider.Policy.AppRedirect.appPlaceholders.contains(name) {
            found.refuse(
                setting, code: .unknownVariable,
                "names `{\(name)}`, which is neither a variable the descriptor declares nor one an app's sign-in fills in (`{client_id}`, `{reversed_client_id}`, `{bundle_id}`)"
            )
            known = false
        }
        return known
    }

    /// Why a redirect URI template cannot be one: a query or fragment (RFC 6749 §3.1.2 forbids the fragment; a query
    /// would be taken for the callback's), white space or a control character.
    private static func shapeProblem(_ template: String) -> String? {
        // By byte: Foundation's substring search (`contains("#")` on a `String`) was slower and passed a `#` or `?`
        // that a combining mark follows, which a URL parser still takes for the delimiter.
        if UTF8Search.contains(UInt8(ascii: "#"), in: template) { return "has a fragment, which a redirect URI may not have (RFC 6749 §3.1.2)" }
        if UTF8Search.contains(UInt8(ascii: "?"), in: template) { return "has a query: the provider adds the callback's parameters there" }
        if template.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) {
            return "holds white space or a control character"
        }
        return nil
    }

    /// `template` with each declared variable that has a value filled in; the others, and what the sign-in fills, kept.
    private func fill(_ template: String, _ variables: [String: String]?) -> String {
        guard let variables else { return template }
        return ProviderDescriptor.parameterParts(template).map { part in
            switch part {
            case .text(let text): return String(text)
            case .variable(let name):
                if let value = variables[name], !value.isEmpty { return value }
                return "{\(name)}"
            }
        }.joined()
    }
}

extension ProviderDescriptor.Loopback.Port {
    /// The resolved provider's form of the port.
    var resolved: Provider.Loopback.Port {
        switch self {
        case .ephemeral: .ephemeral
        case let .fixed(number): .fixed(number)
        }
    }
}

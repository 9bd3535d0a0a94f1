import Foundation

/// Which `iss` values name one provider: its issuer, the other exact spellings it uses, and, for a
/// multi-tenant provider, the issuer template filled from an ID token's own claims.
///
/// Every comparison runs in constant time.
package struct IssuerMatcher: Sendable, Hashable {
    /// The issuer, as resolved; nil for a provider that declares none.
    public let issuer: URL?
    /// Other exact spellings (`security.issuer_aliases`).
    public let aliases: [String]
    /// The ID token's `iss` as a template of `{claim}` placeholders (`security.id_token_issuer`).
    public let template: String?

    public init(issuer: URL?, aliases: [String] = [], template: String? = nil) {
        self.issuer = issuer
        self.aliases = aliases
        self.template = template
    }

    /// Whether `iss` is the issuer or one of its aliases.
    public func matches(_ iss: String) -> Bool {
        guard let issuer else { return false }
        return ConstantTime.equals(iss, issuer.absoluteString) || aliases.contains { ConstantTime.equals(iss, $0) }
    }

    /// Whether an ID token's `iss` names the provider: ``matches(_:)``, or exactly the template filled
    /// with the token's own claims.
    ///
    /// A claim that fills the template must be a plain identifier (letters, digits, `-`, `_`, `.`), so a
    /// hostile claim cannot bend the URL it builds.
    public func matchesIDToken(_ iss: String, claims: [String: JSONValue]) -> Bool {
        if matches(iss) { return true }
        guard let template else { return false }
        var complete = true
        let expected = URLTemplate(template).rendering { name in
            guard let value = claims[String(name)]?.stringValue, !value.isEmpty,
                value.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) && $0.isASCII || "-_.".unicodeScalars.contains($0) })
            else {
                complete = false
                return nil
            }
            return value
        }
        return complete && ConstantTime.equals(iss, expected)
    }

    /// Whether a discovery document's `issuer` names the provider: ``matches(_:)``, or, for a
    /// multi-tenant provider, the template with any placeholder name (Entra's `common` document says
    /// `https://login.microsoftonline.com/{tenantid}/v2.0`).
    public func matchesDiscovery(_ iss: String) -> Bool {
        if matches(iss) { return true }
        guard let template else { return false }
        func shape(_ text: String) -> String { URLTemplate(text).rendering { _ in "{}" } }
        return iss.contains("{") && shape(iss) == shape(template)
    }
}

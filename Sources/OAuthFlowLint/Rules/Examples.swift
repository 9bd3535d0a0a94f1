/// Building blocks for rule examples, so each example shows only what it is about.
enum Examples {
    /// The identity keys of a plain OAuth 2.0 descriptor named `example`.
    static let header = """
        schema_version: 1
        id: example
        display_name: Example
        protocol: oauth2

        """

    /// The identity keys of an OpenID Connect descriptor named `example`.
    static let oidcHeader = """
        schema_version: 1
        id: example
        display_name: Example
        protocol: oidc

        """

    /// An issuer and the two endpoints every flow needs.
    static let endpoints = """
        issuer: https://auth.example.com
        endpoints:
          authorization: https://auth.example.com/authorize
          token: https://auth.example.com/token

        """

    /// A complete, valid plain OAuth 2.0 descriptor.
    static let valid = header + endpoints

    /// ``valid`` with another `id`. Written out rather than replaced in ``valid``: a rule's description is made the
    /// first time it reports, and Foundation's `replacingOccurrences` cost a million instructions there.
    static func valid(id: String) -> String {
        "schema_version: 1\nid: \(id)\ndisplay_name: Example\nprotocol: oauth2\n" + endpoints
    }

    /// A complete, valid OpenID Connect descriptor.
    static let validOIDC =
        oidcHeader + endpoints + """
            scopes:
              default: [openid, email]

            """
}

import OAuthFlow

/// FAPI 2.0 Security Profile: a descriptor that claims it (`security.profile: fapi2`) must not contradict it. The
/// resolver refuses each contradiction (code `security_profile`) with what the profile requires; this rule reports
/// them where they are written.
struct FAPI2ProfileRule: LintRule {
    /// A descriptor that follows the profile: every example below changes one thing in it.
    static let compliant =
        Examples.oidcHeader + """
            issuer: https://bank.example.com
            discovery:
              mode: oidc
            scopes:
              default: [openid, accounts]
            client_auth:
              methods: [private_key_jwt]
            security:
              profile: fapi2
              id_token_algs: [PS256, ES256]
              dpop: required
              dpop_signing_alg_values_supported: [ES256, PS256]

            """

    static let description = RuleDescription(
        identifier: "fapi2_profile", name: "FAPI 2.0 Security Profile",
        summary:
            "A descriptor with `security.profile: fapi2` must not contradict the FAPI 2.0 Security Profile: endpoints only from the issuer's metadata (`discovery` on, no `endpoints`, no `discovery.url`, no issuer aliases), pushed requests (not `pushed: never`), PKCE and RFC 9207 `iss`, client authentication only with `private_key_jwt` or mutual TLS (assertions addressed to the issuer), PS256, ES256 or EdDSA only (ID tokens, assertions, DPoP proofs, and any `request_object_algs` or `response_algs` written), sender-constrained tokens (`dpop` other than `never` unless a mutual-TLS method is listed or `tls_client_certificate_bound_access_tokens: true`; no `dpop_bearer_answer: accept`) and tokens only in headers. `fapi2_message_signing` adds `request_object: always` and a JWT `response_mode`.",
        severity: .error,
        triggering: [
            compliant.replacingOccurrences(of: "security:\n", with: "authorization:\n  pushed: never\nsecurity:\n"),
            compliant.replacingOccurrences(of: "[PS256, ES256]", with: "[RS256]"),
            compliant.replacingOccurrences(of: "[private_key_jwt]", with: "[private_key_jwt, client_secret_basic]"),
            compliant.replacingOccurrences(of: "dpop: required", with: "dpop: never"),
            compliant.replacingOccurrences(
                of: "discovery:\n  mode: oidc\n",
                with:
                    "discovery:\n  mode: none\nendpoints:\n  authorization: https://bank.example.com/authorize\n  token: https://bank.example.com/token\n"
            ),
        ],
        nonTriggering: [
            compliant,
            compliant.replacingOccurrences(of: "[private_key_jwt]", with: "[tls_client_auth]").replacingOccurrences(
                of: "  dpop: required\n  dpop_signing_alg_values_supported: [ES256, PS256]\n", with: ""),
            Examples.valid + "security:\n  id_token_algs: [RS256]\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        file.refusals.compactMap { refusal in
            guard refusal.code == .securityProfile, let keyPath = refusal.keyPath else { return nil }
            return diagnostic(file, keyPath, refusal.message)
        }
    }
}

import OAuthFlow

/// OpenID Connect Core §3.1.2.1: the `acr_values` and `max_age` a provider asks of every sign-in, checked in the ID token.
struct StepUpRule: LintRule {
    static let description = RuleDescription(
        identifier: "step_up", name: "Step-up asked of every browser sign-in",
        summary:
            "`authorization.acr_values` and `authorization.max_age` are asked of every sign-in through the browser and checked in the ID token (`acr`, `auth_time`), so they need `protocol: oidc` (a device or platform sign-in, which cannot ask them, is refused); each class is one word, listed once, and the list is not empty. Written in `authorization.extra_params` or `scopes.offline.params` instead, they would be sent and never checked.",
        severity: .error,
        triggering: [
            Examples.valid + "authorization:\n  acr_values: [urn:example:mfa]\n",
            Examples.validOIDC + "authorization:\n  extra_params:\n    acr_values: urn:example:mfa\n",
            Examples.validOIDC + "authorization:\n  acr_values: [urn:example:mfa, urn:example:mfa]\n",
        ],
        nonTriggering: [
            Examples.validOIDC + "authorization:\n  acr_values: [urn:example:mfa]\n  max_age: 300\n"
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard !file.refusals.isEmpty else { return [] }
        return refusals(file, at: ["authorization", "acr_values"]) + refusals(file, at: ["authorization", "acr_values"], items: true)
            + refusals(file, at: ["authorization", "max_age"])
            + refusals(file, at: ["authorization", "extra_params"], items: true, atKey: true)
            + refusals(file, at: ["scopes", "offline", "params"], items: true, atKey: true)
    }
}

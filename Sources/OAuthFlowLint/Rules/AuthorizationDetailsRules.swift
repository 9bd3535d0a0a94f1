import OAuthFlow

/// RFC 9396: the `type`s of rich authorization request details a provider documents.
struct AuthorizationDetailsTypesRule: LintRule {
    static let description = RuleDescription(
        identifier: "authorization_details_types", name: "Authorization details types",
        summary:
            "`authorization.details_types` lists each type of rich authorization request details (RFC 9396) once, none empty or with spaces, and is not an empty list (which would refuse every detail); with `authorization.pushed: never` the details go in the browser's URL, where RFC 9396 §4 recommends pushing them (a warning).",
        severity: .error,
        triggering: [
            Examples.valid + "authorization:\n  details_types: []\n",
            Examples.valid + "authorization:\n  details_types: [payment_initiation, payment_initiation]\n",
            Examples.valid + "authorization:\n  details_types: [\"account information\"]\n",
            Examples.valid + "authorization:\n  pushed: never\n  details_types: [payment_initiation]\n",
        ],
        nonTriggering: [
            Examples.valid + "authorization:\n  details_types: [payment_initiation, account_information]\n",
            Examples.valid + "authorization:\n  pushed: always\n  details_types: [payment_initiation]\ndiscovery:\n  mode: oidc\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let descriptor = file.descriptor else { return [] }
        var diagnostics =
            refusals(file, at: ["authorization", "details_types"]) + refusals(file, at: ["authorization", "details_types"], items: true)
        if descriptor.authorization.pushed == .never, descriptor.authorization.detailsTypes?.isEmpty == false {
            diagnostics.append(
                diagnostic(
                    file, ["authorization", "pushed"],
                    "`pushed: never` sends authorization details in the browser's URL, where anyone on the way reads them and long ones are cut; RFC 9396 §4 recommends pushed requests",
                    severity: .warning))
        }
        return diagnostics
    }
}

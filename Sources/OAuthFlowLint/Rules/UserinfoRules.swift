import OAuthFlow

/// The `userinfo` section must describe a request the engine can send safely: the resolver's refusals.
struct UserinfoRequestRule: LintRule {
    static let description = RuleDescription(
        identifier: "userinfo_request", name: "Userinfo request",
        summary:
            "The `userinfo` section must describe a request the engine can send: a form-body token or a fixed body only with `POST`, not both; no `Authorization` header of its own; header and query values naming only `{client_id}`, variables and `{token.…}` fields that are not the tokens themselves, with no control characters; and the token in the header when tokens may be DPoP-bound.",
        severity: .error,
        triggering: [
            Examples.valid + "userinfo:\n  placement: body\n",
            Examples.valid + "userinfo:\n  headers:\n    Authorization: Basic x\n",
            Examples.valid + "userinfo:\n  query:\n    token: '{token.access_token}'\n",
        ],
        nonTriggering: [
            Examples.valid + "userinfo:\n  method: POST\n  placement: body\n",
            Examples.valid
                + "userinfo:\n  scheme: Zoho-oauthtoken\n  headers:\n    trakt-api-key: '{client_id}'\n  query:\n    openid: '{token.openid}'\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        // Seven key paths made and searched for, for a descriptor the resolver refused nothing in: none.
        guard !file.refusals.isEmpty else { return [] }
        return ["method", "placement", "body", "form"].flatMap { refusals(file, at: ["userinfo", $0]) }
            + ["headers", "query", "form"].flatMap { refusals(file, at: ["userinfo", $0], items: true, atKey: true) }
    }
}

/// RFC 6750 §2.3: an access token in a URL ends up in logs and histories.
struct TokenInQueryRule: LintRule {
    static let description = RuleDescription(
        identifier: "token_in_query", name: "Token in query",
        summary:
            "`userinfo.placement: query` puts the access token in the URL, which servers and proxies log (RFC 6750 §2.3 advises against it): advice, for a provider that takes the token nowhere else (Stack Exchange, WeChat); say so in a comment.",
        severity: .info,
        triggering: [Examples.valid + "userinfo:\n  placement: query\n"],
        nonTriggering: [Examples.valid + "userinfo:\n  placement: header\n"])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard file.descriptor?.userinfo.placement == .query else { return [] }
        return [diagnostic(file, ["userinfo", "placement"], "the access token goes in the URL, where logs keep it (RFC 6750 §2.3)")]
    }
}

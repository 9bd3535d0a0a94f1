import Foundation
import OAuthFlow

/// Every placeholder needs a declaration.
struct UndeclaredVariableRule: LintRule {
    static let description = RuleDescription(
        identifier: "undeclared_variable", name: "Undeclared variable",
        summary:
            "Every `{name}` used in a URL, or in the value of an `authorization.extra_params` or `logout.extra_params` parameter, must be declared under `variables`.",
        severity: .error,
        triggering: [
            Examples.header
                + "issuer: https://{domain}/\nendpoints:\n  authorization: https://{domain}/authorize\n  token: https://{domain}/oauth/token\n",
            Examples.valid + "authorization:\n  extra_params:\n    tenantId: '{tenant_id}'\n",
        ],
        nonTriggering: [
            Examples.header
                + "issuer: https://{domain}/\nvariables:\n  domain:\n    description: Tenant domain\nendpoints:\n  authorization: https://{domain}/authorize\n  token: https://{domain}/oauth/token\n",
            Examples.valid
                + "variables:\n  tenant_id:\n    description: Tenant\n    required: false\nauthorization:\n  extra_params:\n    tenantId: '{tenant_id}'\n    claims: '{\"id_token\":{\"email\":null}}'\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let descriptor = file.descriptor else { return [] }
        var diagnostics: [Diagnostic] = []
        // A descriptor declares a dozen variables at most: comparing a name with each (short names compare
        // in a few instructions) costs less than hashing it, once for every placeholder of every file.
        let variables = descriptor.variables
        let names: [String]? = variables.count <= 16 && !file.placeholderUses.isEmpty ? Array(variables.keys) : nil
        // Each use read in place, by position: a closure handed each use copied its key path and name out,
        // a retain and a release each for every placeholder of every file.
        for use in file.placeholderUses.indices {
            // By index, or among the keys: looking the value up would copy the variable out of the dictionary.
            let name = file.placeholderUses[use].placeholder.name
            // (The keys are copied out once: `keys.contains(_:)` hashes, and walking the dictionary costs more.)
            guard names.map({ !$0.contains(name) }) ?? (variables.index(forKey: name) == nil) else { continue }
            let placeholder = file.placeholderUses[use].placeholder
            let keyPath = file.urls[file.placeholderUses[use].field].keyPath
            var message = "`{\(placeholder.name)}` is used in `\(keyPath.joined(separator: "."))` but not declared under `variables`"
            if let suggestion = Spelling.closest(to: placeholder.name, among: descriptor.variables.keys) {
                message += "; did you mean `{\(suggestion)}`?"
            }
            diagnostics.append(diagnostic(file, keyPath, message))
        }
        // A fixed parameter's `{variable}`: the resolver's refusal, at the parameter.
        for refusal in file.refusals where refusal.code == .unknownVariable {
            guard let keyPath = refusal.keyPath else { continue }
            diagnostics.append(diagnostic(file, keyPath, refusal.message))
        }
        return diagnostics
    }
}

/// A declared variable that nothing uses is probably a typo.
struct UnusedVariableRule: LintRule {
    static let description = RuleDescription(
        identifier: "unused_variable", name: "Unused variable",
        summary:
            "A variable declared under `variables` should be used in at least one URL (or `client_auth.generated_secret.issuer`, `access_tokens.audience`, a `userinfo` header, query or form value, an `authorization.extra_params` or `logout.extra_params` value, or an app redirect under `redirect`).",
        severity: .warning,
        triggering: [Examples.valid + "variables:\n  tenant:\n    description: Tenant id\n"],
        nonTriggering: [
            Examples.header
                + "issuer: https://{tenant}.example.com\nvariables:\n  tenant:\n    description: Tenant id\nendpoints:\n  authorization: https://{tenant}.example.com/authorize\n  token: https://{tenant}.example.com/token\n",
            Examples.valid
                + "variables:\n  tenant:\n    description: Tenant id\n    required: false\nlogout:\n  extra_params:\n    tenantId: '{tenant}'\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let descriptor = file.descriptor, !descriptor.variables.isEmpty else { return [] }
        // A descriptor declares a few variables and uses them a dozen times: searching the uses for each
        // costs less than hashing every use into a set. Most are used in a URL.
        var unused = descriptor.variables.keys.sorted().filter { name in !file.placeholderUses.contains { $0.placeholder.name == name } }
        guard !unused.isEmpty else { return [] }
        // The other templates variables fill (a generated client secret's issuer, an API's audience, a userinfo header,
        // query or form value) and the parameters that may name them, each read once for all the names still unused
        // (not again for each name, which cost twenty thousand instructions an unused variable).
        let userinfo = descriptor.userinfo
        let templates =
            [descriptor.clientAuth.generatedSecret?.issuer, descriptor.accessTokens.audience].compactMap { $0 }
            + Array(userinfo.headers.values) + Array(userinfo.query.values) + Array(userinfo.form.values)
        let redirect = descriptor.redirect
        let parameters =
            Array(descriptor.authorization.extraParams.values) + Array(descriptor.logout.extraParams.values)
            + [redirect.privateUseScheme, redirect.privateUseURI, redirect.claimedHTTPS].compactMap { $0 }
        var named: [String] = []
        for template in templates { named += URLTemplate(template).placeholders.map(\.name) }
        for parameter in parameters { named += ProviderDescriptor.parameterVariables(in: parameter) }
        unused.removeAll { named.contains($0) }
        return unused.map {
            diagnostic(file, ["variables", $0], "variable `\($0)` is declared but nothing uses `{\($0)}`", atKey: true)
        }
    }
}

/// Variables fill hosts and path segments, never query strings.
struct VariableOutsideHostOrPathRule: LintRule {
    static let description = RuleDescription(
        identifier: "variable_in_query", name: "Variable in query",
        summary: "Variables may stand only in a URL's host and path; query values belong in `authorization.extra_params`.",
        severity: .error,
        triggering: [
            Examples.header
                + "issuer: https://auth.example.com\nvariables:\n  audience:\n    description: API\nendpoints:\n  authorization: https://auth.example.com/authorize?audience={audience}\n  token: https://auth.example.com/token\n"
        ],
        nonTriggering: [
            Examples.header
                + "issuer: https://auth.example.com/{realm}\nvariables:\n  realm:\n    description: Realm\nendpoints:\n  authorization: https://auth.example.com/{realm}/authorize\n  token: https://auth.example.com/{realm}/token\n"
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        // Each use's part read in place; the use is copied out only for a finding.
        for use in file.placeholderUses.indices {
            let part = file.placeholderUses[use].placeholder.part
            guard part != .host, part != .path else { continue }
            let placeholder = file.placeholderUses[use].placeholder
            let keyPath = file.urls[file.placeholderUses[use].field].keyPath
            diagnostics.append(
                diagnostic(
                    file, keyPath,
                    "`{\(placeholder.name)}` stands in the \(placeholder.part.rawValue) of `\(keyPath.joined(separator: "."))`; variables are allowed only in host and path"
                ))
        }
        return diagnostics
    }
}

/// A variable's own declaration must hang together.
struct VariableDefinitionRule: LintRule {
    static let description = RuleDescription(
        identifier: "variable_definition", name: "Variable definition",
        summary: "A variable's `pattern` must compile, and its `default`, `example` and `enum` values must satisfy it and each other.",
        severity: .error,
        triggering: [
            Examples.header
                + "issuer: https://{tenant}.example.com\nvariables:\n  tenant:\n    description: Tenant\n    pattern: '^[a-z]+$'\n    default: Tenant1\nendpoints:\n  authorization: https://{tenant}.example.com/a\n  token: https://{tenant}.example.com/t\n",
            Examples.header
                + "issuer: https://{tenant}.example.com\nvariables:\n  tenant:\n    description: Tenant\n    pattern: '^[a-z+$'\nendpoints:\n  authorization: https://{tenant}.example.com/a\n  token: https://{tenant}.example.com/t\n",
        ],
        nonTriggering: [
            Examples.header
                + "issuer: https://{region}.example.com\nvariables:\n  region:\n    description: Region\n    enum: [us, eu]\n    default: us\nendpoints:\n  authorization: https://{region}.example.com/a\n  token: https://{region}.example.com/t\n"
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let descriptor = file.descriptor else { return [] }
        var diagnostics: [Diagnostic] = []
        for (name, variable) in descriptor.variables.sorted(by: { $0.key < $1.key }) {
            if let problem = variable.patternProblem {
                diagnostics.append(diagnostic(file, ["variables", name, "pattern"], "pattern of variable `\(name)` cannot be used: \(problem)"))
                continue
            }
            // Each sample value with the key path under the variable where it is written; the example
            // is offered only beside the other values, and only if it passes itself.
            func check(_ value: String?, at keys: @autoclosure () -> [String]) {
                guard let value,
                    let reason = variable.problem(with: value, citingExample: variable.example.map { variable.problem(with: $0) == nil } ?? false)
                else { return }
                let keys = keys()
                diagnostics.append(
                    diagnostic(file, ["variables", name] + keys, "`\(keys.joined(separator: "."))` of variable `\(name)` \(reason)"))
            }
            check(variable.default, at: ["default"])
            check(variable.example, at: ["example"])
            for (offset, value) in (variable.enum ?? []).enumerated() {
                check(value, at: ["enum", String(offset)])
            }
        }
        return diagnostics
    }
}

import Foundation
import OAuthFlow
import OAuthFlowLint

// Generates N valid descriptors (each with variables, scopes, resources and checks),
// then times loading them into a registry and linting them with every rule.

let count = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 1_000
let iterations = 7

func descriptor(_ index: Int) -> String {
    """
    # yaml-language-server: $schema=schema.json
    schema_version: 1
    id: bench-\(index)
    display_name: Benchmark provider \(index)
    protocol: oidc
    docs_url: https://docs.example.com/\(index)
    issuer: https://{tenant}.idp\(index).example.com/{realm}
    discovery:
      mode: oidc
    variables:
      tenant:
        description: Tenant
        pattern: '^[a-z0-9-]+$'
        example: acme
      realm:
        description: Realm
        enum: [main, test]
        default: main
    endpoints:
      authorization: https://{tenant}.idp\(index).example.com/{realm}/authorize
      token: https://{tenant}.idp\(index).example.com/{realm}/token
      userinfo: https://{tenant}.idp\(index).example.com/{realm}/userinfo
      revocation: https://{tenant}.idp\(index).example.com/{realm}/revoke
      jwks: https://{tenant}.idp\(index).example.com/{realm}/jwks
    scopes:
      default: [openid, profile, email]
      offline:
        scopes: [offline_access]
        params:
          prompt: consent
    authorization:
      extra_params:
        audience: https://api.example.com
    token_request:
      body_encoding: form
      headers:
        Accept: application/json
    client_auth:
      method: none
    security:
      pkce: required
      state: true
      nonce: true
      iss_parameter: if_present
    redirect:
      loopback:
        host: 127.0.0.1
        port: ephemeral
        path: /callback
    resources:
      - scope: email
        title: Mail
        url: https://api.example.com/{tenant}/mail
      - scope: profile
        title: Profile
        url: https://api.example.com/{tenant}/me
    """
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("oauthflow-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
var bytes = 0
for index in 0..<count {
    let text = descriptor(index)
    bytes += text.utf8.count
    try Data(text.utf8).write(to: directory.appendingPathComponent("bench-\(index).yaml"))
}

func measure(_ label: String, _ body: () throws -> Int) rethrows {
    var samples: [Duration] = []
    var result = 0
    for _ in 0..<iterations {
        let clock = ContinuousClock()
        let start = clock.now
        result = try body()
        samples.append(clock.now - start)
    }
    samples.sort()
    func ms(_ d: Duration) -> String {
        let value = Double(d.components.seconds) * 1_000 + Double(d.components.attoseconds) / 1e15
        return String(format: "%.1f ms", value)
    }
    print("\(label): median \(ms(samples[samples.count / 2])), min \(ms(samples[0])), max \(ms(samples[samples.count - 1])) (result \(result), \(iterations) runs)")
}

print("\(count) descriptors, \(bytes / 1024) KiB in all")
try measure("registry load") {
    try ProviderRegistry.load(directories: [directory], includeBundled: false, includeUserDirectory: false).ids.count
}
try measure("registry load + resolve all") {
    let registry = try ProviderRegistry.load(directories: [directory], includeBundled: false, includeUserDirectory: false)
    return try registry.ids.reduce(0) { total, id in
        total + (try registry.provider(named: id).resolve(["tenant": "acme"]).resources.entries.count)
    }
}
try measure("full lint (\(Linter.allRules.count) rules)") {
    let diagnostics = try Linter().lint(paths: [directory])
    precondition(diagnostics.isEmpty, "generated descriptors should lint clean: \(diagnostics.prefix(3))")
    return diagnostics.count
}

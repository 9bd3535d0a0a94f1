import Foundation
import OAuthFlow

/// RFC 8252 §7.1 and §7.2: an app's redirect URIs. A private-use scheme is a reverse domain name; the whole URI
/// begins with it; a claimed redirect is an https link. What the resolver refuses in them is reported here.
struct PrivateUseSchemeRule: LintRule {
    static let description = RuleDescription(
        identifier: "private_use_scheme", name: "Private-use scheme",
        summary:
            "A private-use redirect scheme must be a reverse domain name with a period, such as `com.example.app` (RFC 8252 §7.1), or name placeholders that fill one in (`{reversed_client_id}`, `{bundle_id}`); `private_use_uri` begins with it, and `claimed_https` is an https link (RFC 8252 §7.2).",
        severity: .error,
        triggering: [
            Examples.valid + "redirect:\n  private_use_scheme: myapp\n",
            Examples.valid + "redirect:\n  private_use_scheme: 'com.example.app:/callback'\n",
            Examples.valid + "redirect:\n  private_use_scheme: com.example.app\n  private_use_uri: 'org.example.app:/callback'\n",
            Examples.valid + "redirect:\n  claimed_https: 'http://app.example.com/callback'\n",
        ],
        nonTriggering: [
            Examples.valid + "redirect:\n  private_use_scheme: com.example.app\n",
            Examples.valid
                + "redirect:\n  private_use_scheme: '{reversed_client_id}'\n  claimed_https: 'https://app.example.com/ios/{bundle_id}/callback'\n",
        ])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let descriptor = file.descriptor else { return [] }
        if !file.refusals.isEmpty {
            let refused = ["private_use_scheme", "private_use_uri", "claimed_https"].flatMap { refusals(file, at: ["redirect", $0]) }
            if !refused.isEmpty { return refused }
        }
        // A scheme written whole must be a domain name reversed; one made of placeholders is checked when filled in.
        guard let scheme = descriptor.redirect.privateUseScheme, ProviderDescriptor.parameterVariables(in: scheme).isEmpty,
            !UTF8Search.contains(UInt8(ascii: "."), in: scheme)
        else { return [] }
        return [
            diagnostic(
                file, ["redirect", "private_use_scheme"],
                "scheme `\(scheme)` has no period; use a reverse domain name you control, such as `com.example.\(scheme)`")
        ]
    }
}

/// RFC 8252 §8.3: prefer the loopback IP literal to `localhost`.
struct LocalhostLoopbackRule: LintRule {
    static let description = RuleDescription(
        identifier: "localhost_loopback", name: "Localhost loopback",
        summary:
            "The loopback redirect host should be `127.0.0.1` or `[::1]`, not `localhost`, which may resolve elsewhere or be taken by another listener (RFC 8252 §8.3); `write_localhost: true`, for a provider that accepts the name only, keeps it and needs `host: localhost`.",
        severity: .warning,
        triggering: [
            Examples.valid + "redirect:\n  loopback:\n    host: localhost\n",
            Examples.valid + "redirect:\n  loopback:\n    host: 127.0.0.1\n    write_localhost: true\n",
        ],
        nonTriggering: [Examples.valid + "redirect:\n  loopback:\n    host: 127.0.0.1\n"])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let loopback = file.descriptor?.redirect.loopback else { return [] }
        let host = loopback.host
        // The resolver refuses `write_localhost` on another host: an error, as the provider cannot be resolved.
        let refused = refusals(file, at: ["redirect", "loopback", "write_localhost"]).map { diagnostic in
            var refusal = diagnostic
            refusal.severity = .error
            return refusal
        }
        if !refused.isEmpty { return refused }
        // `write_localhost` states that the provider takes the name only (its field documents the §8.3 caveat).
        if loopback.writeLocalhost { return [] }
        if host.lowercased() == "localhost" {
            return [
                diagnostic(
                    file, ["redirect", "loopback", "host"],
                    "use `127.0.0.1` or `[::1]` rather than `localhost` (RFC 8252 §8.3); it is written as 127.0.0.1 anyway, unless `write_localhost: true` says the provider accepts only the name"
                )
            ]
        }
        if !Loopback.isLoopbackHost(host) {
            return [
                Diagnostic(
                    location: file.document.location(of: ["redirect", "loopback", "host"]), severity: .error,
                    ruleID: Self.description.identifier,
                    message: "`\(host)` is not a loopback address; the redirect receiver must listen on 127.0.0.1 or [::1]")
            ]
        }
        return []
    }
}

/// A named resource file must exist and read as a resource list.
struct ResourcesFileRule: LintRule {
    static let description = RuleDescription(
        identifier: "resources_file", name: "Resources file",
        summary: "The file named by `resources_file` must exist beside the descriptor and hold a list of `{scope, title, url}` entries.",
        severity: .error,
        triggering: [Examples.valid + "resources_file: no-such-file.json\n"],
        nonTriggering: [Examples.valid + "resources:\n  - scope: email\n    title: Mail\n    url: https://api.example.com/mail\n"])

    func validate(_ file: LintFile) -> [Diagnostic] {
        guard let descriptor = file.descriptor, descriptor.resourcesFile != nil else { return [] }
        do {
            _ = try descriptor.resourceTemplates()
            return []
        } catch let error as ProviderError {
            return [diagnostic(file, ["resources_file"], error.message)]
        } catch {
            return [diagnostic(file, ["resources_file"], "\(error)")]
        }
    }
}

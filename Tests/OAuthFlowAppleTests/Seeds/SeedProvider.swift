import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import OAuthFlowTesting

/// A bundled descriptor pointed at a `SimulatedProvider`: the file as it ships (client authentication, body encoding,
/// offline parameters, scopes, the app redirect forms, the resource map), with only its issuer, discovery and endpoints
/// replaced by the stand-in's, in a directory a host's `OAuth.Configuration.providerDirectories` reads first.
struct SeedProvider {
    let simulated: SimulatedProvider
    let directory: URL

    /// - Parameters:
    ///   - id: The bundled descriptor.
    ///   - simulated: The stand-in; its issuer is the descriptor's, as the provider publishes it.
    ///   - copying: Files the descriptor names beside it (`resources_file`).
    init(_ id: String, at simulated: SimulatedProvider, copying: [String] = []) throws {
        self.simulated = simulated
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("seed-\(id)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let providers = repositoryRoot.appendingPathComponent("providers")
        let text = try String(contentsOf: providers.appendingPathComponent("\(id).yaml"), encoding: .utf8)
        try Self.pointed(text, at: simulated).write(to: directory.appendingPathComponent("\(id).yaml"), atomically: true, encoding: .utf8)
        for file in copying {
            try FileManager.default.copyItem(at: providers.appendingPathComponent(file), to: directory.appendingPathComponent(file))
        }
    }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    /// The stand-in's endpoint for each key the descriptor's `endpoints` may hold.
    static let paths: [String: String] = [
        "authorization": "authorize", "token": "token", "userinfo": "userinfo", "revocation": "revoke", "introspection": "introspect",
        "jwks": "jwks", "device_authorization": "device_authorization", "pushed_authorization": "par",
    ]

    /// `text` with its top-level `issuer`, `discovery` and `endpoints` replaced; every other line as it was.
    static func pointed(_ text: String, at simulated: SimulatedProvider) -> String {
        let issuer = simulated.issuer.absoluteString
        var out: [String] = []
        var skipping = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let topLevel = !line.hasPrefix(" ") && !line.hasPrefix("#") && !line.isEmpty
            if skipping, !topLevel { continue }
            skipping = false
            if line.hasPrefix("issuer:") {
                out.append("issuer: \(issuer)")
            } else if line == "discovery:" {
                out += ["discovery:", "  mode: none"]
                skipping = true
            } else if line == "endpoints:" {
                out.append("endpoints:")
                let base = issuer.hasSuffix("/") ? issuer : issuer + "/"
                out += paths.sorted { $0.key < $1.key }.filter { $0.key != "pushed_authorization" && $0.key != "device_authorization" }
                    .map { "  \($0.key): \(base)\($0.value)" }
                skipping = true
            } else {
                out.append(line)
            }
        }
        return out.joined(separator: "\n")
    }
}

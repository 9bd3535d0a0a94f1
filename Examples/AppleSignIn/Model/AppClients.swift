import Foundation
import OAuthFlow

/// The app's clients, read from its Info.plist as the Cloudentity sample reads its client id there: one entry per
/// provider under `OAuthFlowClients`, each a `ClientID` and the descriptor's `Variables`.
///
/// ```xml
/// <key>OAuthFlowClients</key>
/// <dict>
///     <key>google-ios</key>
///     <dict><key>ClientID</key><string>1234-abc.apps.googleusercontent.com</string></dict>
///     <key>cloudentity</key>
///     <dict>
///         <key>ClientID</key><string>c0ffee</string>
///         <key>Variables</key>
///         <dict><key>tenant</key><string>acme</string><key>workspace</key><string>demo</string><key>app_scheme</key><string>oauth</string></dict>
///     </dict>
/// </dict>
/// ```
public enum AppClients {
    /// The Info.plist key that holds the clients.
    public static let key = "OAuthFlowClients"

    /// What is wrong with an entry, in a sentence.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// The clients of `infoDictionary` (`Bundle.main.infoDictionary`), by provider name.
    ///
    /// - Throws: ``Problem`` for an entry without a `ClientID`, a variable that is not a string, or a secret: an app
    ///   cannot keep one (RFC 8252 §8.5), so its clients are public, with PKCE.
    public static func settings(infoDictionary: [String: Any]?) throws -> [String: ClientSettings] {
        guard let entries = infoDictionary?[key] else { return [:] }
        guard let entries = entries as? [String: Any] else { throw Problem(description: "Info.plist's \(key) is not a dictionary") }
        var clients: [String: ClientSettings] = [:]
        for (provider, entry) in entries {
            guard let entry = entry as? [String: Any], let clientID = entry["ClientID"] as? String, !clientID.isEmpty else {
                throw Problem(description: "Info.plist's \(key).\(provider) has no ClientID string")
            }
            if entry.keys.contains(where: { $0.lowercased().contains("secret") }) {
                throw Problem(description: "Info.plist's \(key).\(provider) holds a secret, which anyone can read from the app: use a public client")
            }
            var variables: [String: String] = [:]
            for (name, value) in entry["Variables"] as? [String: Any] ?? [:] {
                guard let value = value as? String else { throw Problem(description: "Info.plist's \(key).\(provider).Variables.\(name) is not a string") }
                variables[name] = value
            }
            clients[provider] = ClientSettings(clientID: clientID, variables: variables)
        }
        return clients
    }
}

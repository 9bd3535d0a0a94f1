import Foundation
import OAuthFlow

extension SimulatedProvider {
    /// Reads a request's `authorization_details` (RFC 9396 §2) as an authorization server does: a JSON array of
    /// objects, each with a string `type` the provider takes (``Settings/authorizationDetailsTypes``).
    ///
    /// - Returns: The details to grant: ``Settings/grantedAuthorizationDetails`` when a test set them (a server that
    ///   changes what was asked for, RFC 9396 §7), else those asked for; nil when none were asked for.
    /// - Throws: ``OAuthRefusal`` `invalid_authorization_details` (RFC 9396 §5) for anything else.
    func grantedDetails(_ text: String?) throws -> JSONValue? {
        guard let text else { return nil }
        func refuse(_ why: String) -> OAuthRefusal { OAuthRefusal("invalid_authorization_details", why) }
        guard case let .array(entries)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
            throw refuse("authorization_details is not a JSON array")
        }
        for entry in entries {
            guard case let .object(members) = entry, let type = members["type"]?.stringValue else {
                throw refuse("every authorization detail must be an object with a string type")
            }
            if let supported = settings.authorizationDetailsTypes, !supported.contains(type) {
                throw refuse("authorization details of type `\(type)` are not supported")
            }
        }
        return settings.grantedAuthorizationDetails ?? .array(entries)
    }
}

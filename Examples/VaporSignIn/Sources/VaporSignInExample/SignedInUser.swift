import Foundation
import OAuthFlow
import OAuthFlowWeb
import Vapor

/// What the app keeps about a signed-in user in its Vapor session (server side; the browser holds only the
/// session cookie): who it is, and the key of the stored session whose tokens WebSignIn keeps and refreshes.
struct SignedInUser: Codable {
    var session: SessionKey
    var providerName: String
    var profile: UserProfile
    var claims: [String: String]
    var resources: [Resource]

    init(_ result: WebSignInResult, session: SessionKey) {
        self.session = session
        providerName = result.displayName
        profile = result.profile
        claims = displayClaims(result.claims)
        resources = result.resources
    }
}

extension Request {
    /// The signed-in user of this browser's session; nil without one (and no session is made by asking).
    var signedInUser: SignedInUser? {
        guard hasSession, let text = session.data["user"] else { return nil }
        return try? JSONDecoder().decode(SignedInUser.self, from: Data(text.utf8))
    }

    func keep(_ user: SignedInUser) throws {
        session.data["user"] = String(decoding: try JSONEncoder().encode(user), as: UTF8.self)
    }
}

/// Claims as display text, nested values as JSON.
func displayClaims(_ claims: [String: JSONValue]) -> [String: String] {
    claims.mapValues { value in
        switch value {
        case let .string(text): text
        case let .bool(flag): String(flag)
        case let .number(number): number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        default: (try? String(decoding: JSONEncoder().encode(value), as: UTF8.self)) ?? ""
        }
    }
}

#if Vapor
import ExampleSupport
import Foundation
import Vapor

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
#endif

import Crypto
import Foundation
import OAuthFlow

/// One `Set-Cookie` header value.
struct SetCookie {
    var name: String
    var value: String
    var path: String
    var maxAge: Int
    var secure: Bool
    var sameSite: String

    var header: String {
        var parts = ["\(name)=\(value)", "Path=\(path)", "Max-Age=\(maxAge)", "HttpOnly", "SameSite=\(sameSite)"]
        if secure { parts.append("Secure") }
        return parts.joined(separator: "; ")
    }
}

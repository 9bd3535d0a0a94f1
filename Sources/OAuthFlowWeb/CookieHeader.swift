import Crypto
import Foundation
import OAuthFlow

/// Reads a `Cookie` request header: `name=value; name2=value2`.
public enum CookieHeader {
    /// Every cookie in the headers, first value of a name winning.
    public static func parse(_ headers: [String]) -> [String: String] {
        var cookies: [String: String] = [:]
        for header in headers {
            for pair in header.split(separator: ";") {
                let trimmed = pair.trimmingCharacters(in: .whitespaces)
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                let name = String(trimmed[..<equals])
                var value = String(trimmed[trimmed.index(after: equals)...])
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                if cookies[name] == nil { cookies[name] = value }
            }
        }
        return cookies
    }
}

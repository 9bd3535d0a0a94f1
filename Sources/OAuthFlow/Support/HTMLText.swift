import Foundation

/// Text for an HTML page: the loopback receiver's pages and the web sign-in's.
package enum HTMLText {
    /// Text made safe inside HTML text and quoted attribute values: `& < > " '` and control characters become references.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                if character.value < 0x20 || (0x7F...0x9F).contains(character.value) {
                    out += "&#\(character.value);"
                } else {
                    out.unicodeScalars.append(character)
                }
            }
        }
        return out
    }
}

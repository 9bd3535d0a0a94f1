import Foundation
import OAuthFlow

/// Minimal HTML for the default pages.
public enum WebHTML {
    /// Text made safe inside HTML text and quoted attribute values: `& < > " '` and control characters become
    /// references (the escaping the loopback receiver's pages use too).
    public static func escape(_ text: String) -> String {
        HTMLText.escaped(text)
    }

    static func page(title: String, body: String) -> WebResponse {
        WebResponse(
            status: 200, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")],
            body: """
                <!doctype html>
                <html lang="en">
                <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
                <title>\(escape(title))</title></head>
                <body>
                \(body)
                </body>
                </html>
                """)
    }
}

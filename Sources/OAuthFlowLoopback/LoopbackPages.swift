#if NIO
import Foundation
import OAuthFlow

/// The small pages the browser shows.
public enum LoopbackPages {
    static let notFound = LoopbackResponse(status: 404, html: page(title: "Not found", message: "Nothing here."), finishes: false)
    static let busy = LoopbackResponse(
        status: 503, html: page(title: "Busy", message: "Another request to this address is being handled. Reload the page in a moment."),
        finishes: false)
    static let alreadyDone = LoopbackResponse(
        status: 410, html: page(title: "Already done", message: "This sign-in has already finished. You can close this tab."), finishes: false)

    /// A minimal HTML page; `title` and `message` are escaped.
    public static func page(title: String, message: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title>
        <style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}</style></head>
        <body><h1>\(escape(title))</h1><p>\(escape(message))</p></body></html>
        """
    }

    static func escape(_ text: String) -> String {
        HTMLText.escaped(text)
    }
}
#endif

#if Vapor
import ExampleSupport
import Foundation
import Vapor

/// An example page (ExamplePages, shared with the Hummingbird example) as a response.
func html(_ page: String, status: HTTPResponseStatus = .ok) -> Response {
    Response(status: status, headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"], body: .init(string: page))
}
#endif

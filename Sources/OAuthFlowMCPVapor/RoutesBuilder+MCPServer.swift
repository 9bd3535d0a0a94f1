#if MCP && Vapor
import Foundation
import OAuthFlow
import OAuthFlowMCP
import Vapor

extension RoutesBuilder {
    /// Serves a protected MCP server: its endpoint (POST, GET and DELETE at `ProtectedMCPServer.endpointPath`) and its
    /// protected-resource metadata (RFC 9728) at each of `ProtectedMCPServer.metadataPaths`.
    ///
    /// ```swift
    /// app.addMCPServer(mcp)
    /// ```
    public func addMCPServer(_ server: ProtectedMCPServer) {
        let document = server.metadataDocument
        for path in server.metadataPaths {
            on(.GET, Self.constants(path)) { _ -> Response in
                Response(status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "max-age=3600"], body: .init(data: document))
            }
        }
        let limit = server.configuration.maximumBodySize
        for method in [HTTPMethod.POST, .GET, .DELETE] {
            on(method, Self.constants(server.endpointPath), body: .collect(maxSize: ByteCount(value: limit))) { request -> Response in
                let headers = request.headers.map { (name: $0.name, value: $0.value) }
                let body = request.body.data.map { Data(buffer: $0) } ?? Data()
                let answer = await server.handle(
                    ProtectedMCPServer.Request(method: request.method.rawValue, path: request.url.path, headers: headers, body: body))
                return vaporResponse(answer)
            }
        }
    }

    /// A path such as `/mcp` as constant components: a `:` or `*` in it is a character, never a parameter.
    static func constants(_ path: String) -> [PathComponent] {
        path.split(separator: "/").map { .constant(String($0)) }
    }
}

/// The answer as Vapor's: every header (a repeated `WWW-Authenticate` stays repeated), the body whole or streamed. A free
/// function: the route's handler, a `@Sendable` closure, then captures no metatype of the builder.
private func vaporResponse(_ answer: ProtectedMCPServer.Response) -> Response {
    var fields = HTTPHeaders()
    for (name, value) in answer.headers { fields.add(name: name, value: value) }
    switch answer.body {
    case let .bytes(data):
        return Response(status: HTTPResponseStatus(statusCode: answer.status), headers: fields, body: .init(data: data))
    case let .stream(stream):
        let body = Response.Body(managedAsyncStream: { writer in
            for try await chunk in stream { try await writer.writeBuffer(ByteBuffer(data: chunk)) }
        })
        return Response(status: HTTPResponseStatus(statusCode: answer.status), headers: fields, body: body)
    }
}
#endif

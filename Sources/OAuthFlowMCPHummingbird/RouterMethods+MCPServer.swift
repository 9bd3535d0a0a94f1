#if MCP && Hummingbird
import Foundation
import HTTPTypes
import Hummingbird
import OAuthFlow
import OAuthFlowMCP

extension RouterMethods {
    /// Serves a protected MCP server: its endpoint (POST, GET and DELETE at `ProtectedMCPServer.endpointPath`) and its
    /// protected-resource metadata (RFC 9728) at each of `ProtectedMCPServer.metadataPaths`.
    ///
    /// ```swift
    /// let router = Router()
    /// router.addMCPServer(mcp)
    /// ```
    @discardableResult
    public func addMCPServer(_ server: ProtectedMCPServer) -> Self {
        let document = server.metadataDocument
        for path in server.metadataPaths {
            get(RouterPath(path)) { _, _ -> Response in
                Response(
                    status: .ok, headers: [.contentType: "application/json", .cacheControl: "max-age=3600"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: document)))
            }
        }
        let limit = server.configuration.maximumBodySize
        for method in [HTTPRequest.Method.post, .get, .delete] {
            on(RouterPath(server.endpointPath), method: method) { request, _ -> Response in
                var request = request
                let body: ByteBuffer
                do {
                    body = try await request.collectBody(upTo: limit)
                } catch {
                    return Response(status: .contentTooLarge, headers: [.contentLength: "0"])
                }
                let headers = request.headers.map { (name: $0.name.canonicalName, value: $0.value) }
                let answer = await server.handle(
                    ProtectedMCPServer.Request(method: request.method.rawValue, path: request.uri.path, headers: headers, body: Data(buffer: body)))
                return Self.hummingbirdResponse(answer)
            }
        }
        return self
    }

    /// The answer as Hummingbird's: every header (a repeated `WWW-Authenticate` stays repeated), the body whole or streamed.
    static func hummingbirdResponse(_ answer: ProtectedMCPServer.Response) -> Response {
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        switch answer.body {
        case let .bytes(data):
            fields[.contentLength] = String(data.count)
            return Response(
                status: HTTPResponse.Status(code: answer.status), headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        case let .stream(stream):
            return Response(
                status: HTTPResponse.Status(code: answer.status), headers: fields,
                body: ResponseBody { writer in
                    for try await chunk in stream { try await writer.write(ByteBuffer(bytes: chunk)) }
                    try await writer.finish(nil)
                })
        }
    }
}
#endif

#if MCP
import Foundation
import MCP

/// What a request body asks of the server, read before the SDK sees it: the JSON-RPC method and, for `tools/call`, the
/// tool's name.
///
/// It is read the way the SDK's `Server` reads it, with `JSONDecoder` and a keyed container for `method` and `params`
/// and the SDK's `Value` for the parameters, so that a body with repeated members names the same tool here as there.
struct JSONRPCProbe: Sendable, Equatable {
    /// The body is a JSON array: a batch, which MCP no longer has (revision 2025-06-18) and the SDK's transports refuse.
    let isBatch: Bool
    /// `method`, when the body is an object whose `method` is a string.
    let method: String?
    /// `params.name` of a `tools/call`.
    let toolName: String?

    init(_ body: Data) {
        let first = body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        isBatch = first == UInt8(ascii: "[")
        let message = isBatch ? nil : try? JSONDecoder().decode(Message.self, from: body)
        method = message?.method
        toolName = method == CallTool.name ? message?.params?.objectValue?["name"]?.stringValue : nil
    }

    var isInitialize: Bool { method == Initialize.name }

    private struct Message: Decodable {
        let method: String?
        let params: Value?

        enum CodingKeys: String, CodingKey { case method, params }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            method = try? container.decode(String.self, forKey: .method)
            params = try? container.decode(Value.self, forKey: .params)
        }
    }
}
#endif

#if Vapor
import OAuthFlow
import Vapor

extension ProtectedResource.Denial {
    /// The answer: the status, each challenge and header, `Cache-Control: no-store`, and no body.
    public var vaporResponse: Response {
        var fields = HTTPHeaders()
        for (name, value) in headers { fields.add(name: name, value: value) }
        fields.replaceOrAdd(name: .cacheControl, value: "no-store")
        return Response(status: HTTPResponseStatus(statusCode: status), headers: fields, body: .empty)
    }
}
#endif

#if Vapor
import OAuthFlowWeb
import Vapor

extension WebResponse {
    /// The response as Vapor sends it: the status, every header in order (`Set-Cookie` may repeat), the page.
    public var vaporResponse: Response {
        var fields = HTTPHeaders()
        for (name, value) in headers { fields.add(name: name, value: value) }
        return Response(status: HTTPResponseStatus(statusCode: status), headers: fields, body: body.isEmpty ? .empty : .init(string: body))
    }
}
#endif

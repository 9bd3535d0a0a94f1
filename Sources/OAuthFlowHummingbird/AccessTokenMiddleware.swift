#if Hummingbird
import Foundation
import HTTPTypes
import Hummingbird
import OAuthFlow

/// Lets a request through only with an access token that `ProtectedResource` accepts and that grants
/// the scopes given; the route then reads ``AccessRequestContext/accessPrincipal``. Anything else is
/// answered at once with the status and `WWW-Authenticate` challenges of RFC 6750 and RFC 9449.
///
/// ```swift
/// let router = Router(context: BasicAccessRequestContext.self)
/// router.addProtectedResourceMetadata(api)
/// router.group("notes")
///     .add(middleware: AccessTokenMiddleware(api, requiring: ["notes:read"]))
///     .get { _, context in context.accessPrincipal?.subject ?? "" }
/// ```
///
/// Behind a proxy, set `ProtectedResource.Settings.resource` to the public URL: DPoP proofs name that origin.
public struct AccessTokenMiddleware<Context: AccessRequestContext>: RouterMiddleware {
    public let resource: ProtectedResource
    public let scopes: [String]
    /// The authentication every request's user must have had (RFC 9470); nil for any.
    public let stepUp: ProtectedResource.StepUp?

    /// - Parameters:
    ///   - resource: Checks the tokens.
    ///   - scopes: The scopes the routes behind it require; none for any accepted token.
    ///   - stepUp: The authentication the routes behind it require: an `acr` among its values, an `auth_time` within
    ///     its age (RFC 9470); a token that falls short is answered 401 with the challenge saying what to sign in with.
    public init(_ resource: ProtectedResource, requiring scopes: [String] = [], stepUp: ProtectedResource.StepUp? = nil) {
        self.resource = resource
        self.scopes = scopes
        self.stepUp = stepUp
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let access = resource.accessRequest(
            authorization: request.headers[values: .authorization], dpop: Self.dpopProofs(in: request.headers), method: request.method.rawValue,
            path: request.uri.path)
        var context = context
        do {
            context.accessPrincipal = try await resource.authenticate(access, requiring: scopes, stepUp: stepUp)
        } catch {
            return error.hummingbirdResponse
        }
        return try await next(request, context)
    }

    /// The `DPoP` header's values (RFC 9449 §4.1), found by the field's canonical (lowercase) name: a comparison with a
    /// constant, where a made `HTTPField.Name` would need a fallback, and any fallback is another header's proof.
    static func dpopProofs(in headers: HTTPFields) -> [String] {
        headers.lazy.filter { $0.name.canonicalName == "dpop" }.map(\.value)
    }
}

extension ProtectedResource.Denial {
    /// The answer: the status, each challenge and header, `Cache-Control: no-store`, and no body.
    public var hummingbirdResponse: Response {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        fields[.cacheControl] = "no-store"
        fields[.contentLength] = "0"
        return Response(status: HTTPResponse.Status(code: status), headers: fields)
    }
}

extension RouterMethods {
    /// Serves the resource's metadata document (RFC 9728) at `ProtectedResource.metadataURL`'s path.
    @discardableResult
    public func addProtectedResourceMetadata(_ resource: ProtectedResource) -> Self {
        let document = resource.metadata.json()
        get(RouterPath(resource.metadataURL.path)) { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "max-age=3600"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: document)))
        }
        return self
    }
}
#endif

#if Vapor
import Foundation
import OAuthFlow
import Vapor

/// Lets a request through only with an access token that `ProtectedResource` accepts and that grants
/// the scopes given; the route then reads ``Vapor/Request/accessPrincipal`` (or
/// `request.auth.require(ProtectedResource.Principal.self)`). Anything else is answered at once with the status and
/// `WWW-Authenticate` challenges of RFC 6750 and RFC 9449 (``OAuthFlow/ProtectedResource/Denial/vaporResponse``).
///
/// ```swift
/// app.addProtectedResourceMetadata(api)
/// app.grouped(api.middleware(requiring: ["notes:read"]))
///     .get("notes") { request in request.accessPrincipal?.subject ?? "" }
/// ```
///
/// Behind a proxy, set `ProtectedResource.Settings.resource` to the public URL: DPoP proofs name that origin.
public struct AccessTokenMiddleware: AsyncMiddleware {
    public let resource: ProtectedResource
    /// The scopes every request must have been granted.
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

    public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let access = resource.accessRequest(
            authorization: request.headers[.authorization], dpop: request.headers["DPoP"], method: request.method.rawValue,
            path: request.url.path)
        do {
            request.auth.login(try await resource.authenticate(access, requiring: scopes, stepUp: stepUp))
        } catch {
            return error.vaporResponse
        }
        return try await next.respond(to: request)
    }
}

extension ProtectedResource {
    /// A middleware that lets through only requests whose access token grants `scopes`, and whose user
    /// authenticated as `stepUp` asks (RFC 9470).
    ///
    /// - Parameters:
    ///   - scopes: The scopes the routes behind it require; none for any accepted token.
    ///   - stepUp: The authentication the routes behind it require; nil for any.
    public func middleware(requiring scopes: [String] = [], stepUp: StepUp? = nil) -> AccessTokenMiddleware {
        AccessTokenMiddleware(self, requiring: scopes, stepUp: stepUp)
    }
}

/// An accepted access token's principal is what `request.auth` holds for a protected route.
extension ProtectedResource.Principal: Authenticatable {}

extension Request {
    /// Who the request's access token speaks for, set by ``AccessTokenMiddleware``; nil on routes it does not guard.
    public var accessPrincipal: ProtectedResource.Principal? {
        auth.get(ProtectedResource.Principal.self)
    }
}
#endif

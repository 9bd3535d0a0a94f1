#if Hummingbird
import Foundation
import HTTPTypes
import Hummingbird
import OAuthFlow

/// A request context that carries the principal of the request's access token.
public protocol AccessRequestContext: RequestContext {
    /// Set by ``AccessTokenMiddleware`` before the route runs.
    var accessPrincipal: ProtectedResource.Principal? { get set }
}
#endif

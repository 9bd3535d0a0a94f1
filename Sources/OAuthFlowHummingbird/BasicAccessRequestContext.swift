#if Hummingbird
import Foundation
import HTTPTypes
import Hummingbird
import OAuthFlow

/// The plain request context of an API protected by ``AccessTokenMiddleware``.
public struct BasicAccessRequestContext: AccessRequestContext {
    public var coreContext: CoreRequestContextStorage
    public var accessPrincipal: ProtectedResource.Principal?

    public init(source: Source) {
        coreContext = .init(source: source)
    }
}
#endif

#if Hummingbird
import Hummingbird
import OAuthFlowWeb

/// What a host does with a finished sign-in: create its session, set its cookie, issue a JWT…
/// and answer, usually with a redirect to `result.returnTo`. The pending cookie's deletion
/// is added to whatever response it returns.
public typealias SignInHandler<Context: RequestContext> = @Sendable (WebSignInResult, Request, Context) async throws -> Response
#endif

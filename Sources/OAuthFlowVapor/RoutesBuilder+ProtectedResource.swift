#if Vapor
import OAuthFlow
import Vapor

extension RoutesBuilder {
    /// Serves the resource's metadata document (RFC 9728) at `ProtectedResource.metadataURL`'s path,
    /// as `application/json` that clients may cache for an hour.
    public func addProtectedResourceMetadata(_ resource: ProtectedResource) {
        let document = resource.metadata.json()
        on(.GET, PathComponent.constants(resource.metadataURL.path), body: .collect(maxSize: WebRouteLimits.collectedBody)) { _ -> Response in
            Response(status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "max-age=3600"], body: .init(data: document))
        }
    }
}
#endif

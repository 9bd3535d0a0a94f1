import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow

@Suite struct ResourceMapTests {
    private func sampleMap() throws -> ResourceMap {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/scopeData", withExtension: "json"))
        return try ResourceMap(scopeData: Data(contentsOf: url))
    }

    @Test func cloudentitySampleLoadsAsIs() throws {
        let map = try sampleMap()
        #expect(map.entries.count == 4)
        #expect(map.entries.first == Resource(scope: "openid", title: "Transfer",
                                              url: try #require(URL(string: "http://localhost:8080/banking/transfer"))))
    }

    @Test func grantedScopesSelectEntriesInDeclaredOrder() throws {
        let map = try sampleMap()
        // The sample requests "email openid profile": three of the four buttons appear.
        #expect(map.resources(granted: ["profile", "email", "openid"]).map(\.title) == ["Transfer", "Balance", "Some name"])
        #expect(map.resources(granted: ["phone"]).map(\.title) == ["Phone"])
        #expect(map.resources(granted: []).isEmpty)
        #expect(map.resources(granted: ["unrelated"]).isEmpty)
    }

    @Test func lookupByTitleIgnoresCase() throws {
        #expect(try sampleMap().resource(titled: "balance")?.scope == "email")
    }

    @Test func brokenScopeDataIsAnError() {
        #expect(throws: (any Error).self) { try ResourceMap(scopeData: Data("[{\"scope\": \"a\"}]".utf8)) }
        #expect(throws: (any Error).self) { try ResourceMap(scopeData: Data("not json".utf8)) }
        #expect(throws: (any Error).self) { try ResourceMap(scopeData: Data("[{\"scope\":\"a\",\"title\":\"b\",\"url\":\"no scheme\"}]".utf8)) }
    }
}

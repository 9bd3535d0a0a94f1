import Testing
@testable import OAuthFlowApple

@Suite struct OAuthFlowAppleModuleTests {
    @Test func theModuleIsBuiltOnLinux() {
        #expect(String(describing: OAuthFlowApple.self) == "OAuthFlowApple")
    }
}

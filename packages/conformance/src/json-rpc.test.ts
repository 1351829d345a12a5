import { jsonRpcFixture } from './json-rpc-fixture.js';
import { runConformance } from './suite.js';

runConformance(jsonRpcFixture);
runConformance(jsonRpcFixture, { caller: { principalId: 'alice' } });

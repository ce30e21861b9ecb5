import { FakeSearchEngine } from '../../support/fakes/search-engine.ts';
import { describeSearchEngine } from '../../support/search-engine-contract.ts';

/** The in-memory search engine the domain tests use keeps the contract the SQLite one keeps. */
describeSearchEngine('FakeSearchEngine', async () => new FakeSearchEngine());

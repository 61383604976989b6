import { runRecordCases } from './records.case.js';

runRecordCases('standalone Redis', async () => ({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', stop: async () => {} }));

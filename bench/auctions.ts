// `npm run bench -- auctions`.
export default async function run(): Promise<void> {
  throw new Error('the auctions benchmark is not written yet');
}

// `npm run bench -- events`.
export default async function run(): Promise<void> {
  throw new Error('the events benchmark is not written yet');
}

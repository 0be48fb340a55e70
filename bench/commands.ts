// `npm run bench -- commands`.
export default async function run(): Promise<void> {
  throw new Error('the commands benchmark is not written yet');
}

// Sample texts of different kinds, shared by the estimate and chunking tests and the bench.

export const SAMPLES: Record<string, string> = {
  english: `The committee met on Tuesday to review the quarterly results. Revenue grew by 12 percent compared with the same period last year, driven mostly by the new subscription plans. However, operating costs also rose, because the company hired forty new engineers and opened an office in Lisbon. The chair asked the finance team to prepare a detailed forecast before the next meeting, including a scenario in which growth slows down in the second half of the year.`,
  code: `export async function fetchUser(id: string, opts: { timeoutMs?: number } = {}): Promise<User | undefined> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs ?? 5_000);
  try {
    const res = await fetch(\`https://api.example.com/v1/users/\${encodeURIComponent(id)}\`, { signal: controller.signal });
    if (res.status === 404) return undefined;
    if (!res.ok) throw new Error(\`unexpected status \${res.status}\`);
    return (await res.json()) as User;
  } finally {
    clearTimeout(timer);
  }
}`,
  json: JSON.stringify(
    {
      results: [
        {
          id: 'ord_8f3a2c',
          status: 'shipped',
          total: 149.95,
          currency: 'EUR',
          items: [
            { sku: 'KB-204', qty: 2 },
            { sku: 'MS-88', qty: 1 },
          ],
        },
        { id: 'ord_19bd7e', status: 'pending', total: 23.5, currency: 'USD', items: [{ sku: 'CB-USB-C', qty: 3 }] },
        { id: 'ord_77c0aa', status: 'cancelled', total: 0, currency: 'GBP', items: [] },
      ],
      next_cursor: 'eyJvZmZzZXQiOjMwfQ==',
      has_more: true,
    },
    null,
    2,
  ),
  chinese: `委员会于星期二开会审查季度业绩。与去年同期相比，收入增长了百分之十二，主要得益于新的订阅计划。然而，由于公司新聘了四十名工程师并在里斯本开设了办事处，运营成本也有所上升。主席要求财务团队在下次会议前准备一份详细的预测。`,
  japanese: `委員会は火曜日に会合を開き、四半期の業績を検討しました。売上高は前年同期比で12パーセント増加し、主に新しいサブスクリプションプランが牽引しました。しかし、エンジニアを40人採用し、リスボンに事務所を開設したため、営業費用も増加しました。`,
  korean: `위원회는 화요일에 모여 분기 실적을 검토했습니다. 매출은 작년 같은 기간에 비해 12퍼센트 증가했으며, 주로 새로운 구독 요금제 덕분이었습니다. 그러나 회사가 엔지니어 40명을 새로 채용하고 리스본에 사무실을 열면서 운영 비용도 증가했습니다.`,
  russian: `Комитет собрался во вторник, чтобы рассмотреть квартальные результаты. Выручка выросла на 12 процентов по сравнению с тем же периодом прошлого года, главным образом благодаря новым тарифам подписки. Однако операционные расходы также выросли.`,
  french: `Le comité s'est réuni mardi pour examiner les résultats trimestriels. Le chiffre d'affaires a progressé de 12 % par rapport à la même période de l'année dernière, porté principalement par les nouvelles offres d'abonnement. Néanmoins, les coûts d'exploitation ont également augmenté.`,
  emoji: `Great news 🎉🎉 the release shipped! 🚀 Thanks everyone 🙏❤️ — see you at the party 🍕🍻 👩‍💻👨‍👩‍👧 ✅ done, ⚠️ one warning left 😅`,
};
